-- Deletes the checkpoint only if it still belongs to the given turn.
-- KEYS: checkpoint. ARGV: turnId. Returns 1 when deleted, else 0.
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local ok, checkpoint = pcall(cjson.decode, stored)
if ok and type(checkpoint) == 'table' and checkpoint.turnId == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
