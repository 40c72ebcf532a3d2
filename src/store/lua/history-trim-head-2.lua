-- Drops the head of history if nothing else dropped any since it was read: `trimmed`
-- counts every message ever dropped, so a concurrent compaction is seen, while a
-- concurrent append (at the tail) is kept.
-- KEYS: history, trimmed. ARGV: trimmed as read, length as read, how many to drop.
-- Returns 1 when trimmed, 0 when history changed meanwhile.
local trimmed = tonumber(redis.call('GET', KEYS[2]) or '0')
if trimmed ~= tonumber(ARGV[1]) or redis.call('LLEN', KEYS[1]) < tonumber(ARGV[2]) then
  return 0
end
redis.call('LTRIM', KEYS[1], ARGV[3], -1)
redis.call('INCRBY', KEYS[2], ARGV[3])
return 1
