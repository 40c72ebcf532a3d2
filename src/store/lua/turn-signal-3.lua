-- Signals the turn in progress, if any: its id is read from the checkpoint, so a
-- signal can never reach a later turn. An interrupt is only for a message that
-- turn has not consumed.
-- KEYS: checkpoint, control, inbox. ARGV: kind, ttl, channel, conversation key.
-- Returns the turn's id, or false when there is nothing to signal.
local stored = redis.call('GET', KEYS[1])
if not stored then return false end
local ok, checkpoint = pcall(cjson.decode, stored)
if not ok or type(checkpoint) ~= 'table' or type(checkpoint.turnId) ~= 'string' then return false end
if ARGV[1] == 'interrupt' and redis.call('LLEN', KEYS[3]) <= (tonumber(checkpoint.inboxCount) or 0) then
  return false
end
redis.call('SET', KEYS[2], checkpoint.turnId .. '|' .. ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4] .. '|' .. checkpoint.turnId .. '|' .. ARGV[1])
return checkpoint.turnId
