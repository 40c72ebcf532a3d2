-- Appends discovery mounts in the order given, skipping ids already mounted: each new
-- 'm:<id>' field gets the next number of the 'mseq' counter.
-- 'm:' is MOUNT_PREFIX and 'mseq' MOUNT_SEQ_FIELD of src/store/intent-fields.ts.
-- KEYS: the intent hash. ARGV: the version, then ids. Returns the hash (HGETALL).
local key = KEYS[1]
if redis.call('HEXISTS', key, 'mseq') == 0 then
  -- A hash written by hand or by an older version: continue after its highest mount.
  local top = 0
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local seq = tonumber(fields[i + 1])
    if string.sub(fields[i], 1, 2) == 'm:' and seq and seq > top then
      top = seq
    end
  end
  redis.call('HSET', key, 'mseq', math.floor(top))
end
for i = 2, #ARGV do
  local field = 'm:' .. ARGV[i]
  if redis.call('HEXISTS', key, field) == 0 then
    redis.call('HSET', key, field, redis.call('HINCRBY', key, 'mseq', 1))
  end
end
redis.call('HSET', key, 'v', ARGV[1])
return redis.call('HGETALL', key)
