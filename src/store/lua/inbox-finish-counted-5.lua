-- Ends the turn in progress, as inbox-finish-3 does, and counts the turn's usage for the
-- conversation in the same step (a turn ends once, so it is counted once). The consumed
-- messages come back: their token-budget reservations are settled with the usage (one
-- round trip for the turn's end, not two).
-- No checkpoint means the turn has ended already: this is the same finish run again (Redis
-- ran it, then died before answering, and the client sent it again), and trims nothing more.
-- KEYS: lease, inbox, checkpoint, usage day, usage month.
-- ARGV: token, consumed, then the usage's six (as add_usage takes them).
-- Returns {left, the consumed messages...}, or {-1} if the lease was lost.
--- @include "includes/add-usage"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
if redis.call('DEL', KEYS[3]) == 0 then return {redis.call('LLEN', KEYS[2])} end
local consumed = tonumber(ARGV[2])
local answered = {}
-- LPOP with a count (Redis 6.2) takes and trims in one command; an empty list answers false.
if consumed > 0 then answered = redis.call('LPOP', KEYS[2], consumed) or {} end
add_usage(KEYS[4], KEYS[5], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
local left = redis.call('LLEN', KEYS[2])
if left == 0 then redis.call('DEL', KEYS[1]) end
table.insert(answered, 1, left)
return answered
