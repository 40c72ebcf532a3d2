-- Writes a checkpoint (and appends a step's messages) only if the stored checkpoint is the
-- expected one: same turn, expected step. A worker that lost its turn to another (a stall,
-- a lease that expired) writes nothing.
-- KEYS: checkpoint, history. ARGV: turnId, step, checkpoint JSON, messages...
-- Returns 1 when written, else 0.
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local ok, checkpoint = pcall(cjson.decode, stored)
if not ok or type(checkpoint) ~= 'table' then return 0 end
if checkpoint.turnId ~= ARGV[1] or checkpoint.step ~= tonumber(ARGV[2]) then return 0 end
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
for i = 4, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('SET', KEYS[1], ARGV[3])
return 1
