-- Claims one platform event for this delivery.
-- KEYS: the event's key. ARGV: ttl of a claim, the claim's own 'taking:<nonce>'.
-- Returns 'fresh' for a new claim, else the state. The claim finding itself is fresh too: Redis
-- ran it, then the link dropped before the answer came (Redis killed after its fsync), and the
-- client sent the same command again.
local state = redis.call('GET', KEYS[1])
if state == ARGV[2] then return 'fresh' end
if state then return state end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
return 'fresh'
