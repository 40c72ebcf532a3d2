-- Ends the turn in progress: drops the consumed messages and the turn's checkpoint; lets go
-- of the lease only if nothing is left. (inbox-finish-counted-5 also counts the turn's usage.)
-- No checkpoint means the turn has ended already: this is the same finish run again (Redis
-- ran it, then died before answering, and the client sent it again), and trims nothing more.
-- KEYS: lease, inbox, checkpoint. ARGV: token, consumed.
-- Returns {left}, or {-1} if the lease was lost.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
if redis.call('DEL', KEYS[3]) == 0 then return {redis.call('LLEN', KEYS[2])} end
local consumed = tonumber(ARGV[2])
if consumed > 0 then redis.call('LTRIM', KEYS[2], consumed, -1) end
local left = redis.call('LLEN', KEYS[2])
if left == 0 then redis.call('DEL', KEYS[1]) end
return {left}
