-- Lets go of a conversation's lease only if there is nothing to do.
-- KEYS: lease, inbox, checkpoint. ARGV: token.
-- Returns 0 when released, >0 when there is work after all, -1 if the lease was lost.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local left = redis.call('LLEN', KEYS[2])
if left == 0 and redis.call('EXISTS', KEYS[3]) == 0 then redis.call('DEL', KEYS[1]) return 0 end
return left + redis.call('EXISTS', KEYS[3])
