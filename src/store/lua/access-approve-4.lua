-- Redeems a pairing code once: the code is gone, the requester approved.
-- KEYS: code, approved, pending, pending order. ARGV: who approved, when (ms).
-- Returns the request JSON, or false when no live code matches.
local request = redis.call('GET', KEYS[1])
if not request then return false end
redis.call('DEL', KEYS[1])
local who = cjson.decode(request)
local approval = { user = who.user, by = ARGV[1], at = tonumber(ARGV[2]) }
if who.name then approval.name = who.name end
redis.call('HSET', KEYS[2], who.user, cjson.encode(approval))
redis.call('HDEL', KEYS[3], who.user)
redis.call('ZREM', KEYS[4], who.user)
return request
