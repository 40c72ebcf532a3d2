-- Deletes every field of a hash except those kept, sets `v`, and returns the hash: a reset
-- that keeps what it must keep (discovery mounts, skill toggles) and drops everything else,
-- including fields a newer version may add.
-- KEYS: the hash. ARGV: the version to write to `v`, then the fields to keep; one ending
-- in ':' keeps every field with that prefix. Returns the hash (HGETALL).
local fields = redis.call('HKEYS', KEYS[1])
local drop = {}
for _, field in ipairs(fields) do
  local keep = field == 'v'
  for i = 2, #ARGV do
    local rule = ARGV[i]
    if field == rule or (string.sub(rule, -1) == ':' and string.sub(field, 1, #rule) == rule) then
      keep = true
      break
    end
  end
  if not keep then drop[#drop + 1] = field end
end
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
for i = 1, #drop, 1000 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 999, #drop)))
end
redis.call('HSET', KEYS[1], 'v', ARGV[1])
return redis.call('HGETALL', KEYS[1])
