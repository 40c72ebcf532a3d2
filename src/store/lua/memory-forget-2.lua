-- Deletes one note and its topic entry.
-- KEYS: notes, topics. ARGV: the note's id. Returns the deleted note's JSON, or false.
local note = redis.call('HGET', KEYS[1], ARGV[1])
if not note then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local ok, decoded = pcall(cjson.decode, note)
if ok and type(decoded) == 'table' and type(decoded.topic) == 'string' then
  if redis.call('HGET', KEYS[2], decoded.topic) == ARGV[1] then redis.call('HDEL', KEYS[2], decoded.topic) end
end
return note
