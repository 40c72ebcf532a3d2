-- Drops messages given up before their turn began, and their pickup count. Run again (Redis
-- ran it and died before answering, and the client sent it again), it finds another message
-- first, or none, and drops nothing more.
-- KEYS: lease, inbox, pickups. ARGV: token, the first message's event id, how many.
-- Returns 1, or 0 if the lease was lost.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local head = redis.call('LINDEX', KEYS[2], 0)
if head then
  local ok, message = pcall(cjson.decode, head)
  if ok and type(message) == 'table' and message.eventId == ARGV[2] then
    redis.call('LTRIM', KEYS[2], tonumber(ARGV[3]), -1)
  end
end
redis.call('DEL', KEYS[3])
return 1
