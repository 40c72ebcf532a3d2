-- Extends a conversation's lease while it is ours.
-- KEYS: lease. ARGV: token, ttl (ms). Returns 1 when renewed, 0 when the lease is another's or gone.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
