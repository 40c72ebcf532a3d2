-- Advances a long-polling offset. Never moves back, so a slow writer cannot replay updates.
-- KEYS: the offset. ARGV: the new offset. Returns the offset now stored.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) return ARGV[1] end
return tostring(current)
