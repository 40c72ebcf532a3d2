-- apply_reset(kind, history, trimmed, intent, settings): starts a conversation afresh,
-- shared by `/new` (when no worker holds the conversation) and the worker's turn boundary
-- (when one did): history and its trim count go, and the discovery mounts ('m:<id>',
-- 'mseq': MOUNT_PREFIX and MOUNT_SEQ_FIELD of src/store/intent-fields.ts) of the intent;
-- 'all' drops the whole intent and the chat settings.
local function apply_reset(kind, history, trimmed, intent, settings)
  redis.call('DEL', history, trimmed)
  if kind == 'all' then
    redis.call('DEL', intent, settings)
  elseif redis.call('TYPE', intent)['ok'] == 'hash' then
    for _, field in ipairs(redis.call('HKEYS', intent)) do
      if field == 'mseq' or string.sub(field, 1, 2) == 'm:' then redis.call('HDEL', intent, field) end
    end
  end
end
