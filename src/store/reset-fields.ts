import { LuaScript, UNPACK_CHUNK } from "./lua.ts";

/**
 * Deletes every field of a hash except those kept, sets `v`, and returns the
 * hash: a reset that keeps what it must keep (discovery mounts, skill toggles)
 * and drops everything else, including fields a newer version may add.
 *
 * KEYS[1]: the hash. ARGV: the fields to keep; one ending in ":" keeps every
 * field with that prefix. ARGV[1] is the version to write to `v`.
 */
export const resetFields = new LuaScript(`
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
for i = 1, #drop, ${UNPACK_CHUNK} do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + ${UNPACK_CHUNK - 1}, #drop)))
end
redis.call('HSET', KEYS[1], 'v', ARGV[1])
return redis.call('HGETALL', KEYS[1])
`);
