-- Counts pickups that find a conversation's next turn where the previous one found it; a
-- turn that moved on starts over at 1. The same pickup sent again (its reply was lost on a
-- reconnect and ioredis resent it) has the same token and counts once. A damaged key is
-- replaced.
-- KEYS: the conversation's pickups. ARGV: where its next turn stands, this pickup's lease
-- token, the messages it takes, ttl (ms).
-- Returns {count, the messages the first of these pickups took}.
local at = redis.pcall('HGET', KEYS[1], 'at')
if type(at) == 'table' and at.err then redis.call('DEL', KEYS[1]) at = false end
local count = 1
local took = ARGV[3]
if at == ARGV[1] then
  local last = redis.call('HMGET', KEYS[1], 'token', 'count', 'took')
  if last[1] == ARGV[2] then
    count = tonumber(last[2]) or 1
  else
    count = redis.call('HINCRBY', KEYS[1], 'count', 1)
    redis.call('HSET', KEYS[1], 'token', ARGV[2])
  end
  took = last[3] or took
else
  redis.call('HSET', KEYS[1], 'at', ARGV[1], 'count', 1, 'token', ARGV[2], 'took', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {count, took}
