-- Takes a conversation's lease.
-- KEYS: lease. ARGV: token, ttl (ms). Returns 1 when the lease is ours (new or already held), else 0.
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
