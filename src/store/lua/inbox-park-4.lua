-- Parks a turn waiting for approval: lets go of the lease although its checkpoint remains,
-- unless something it waits for came meanwhile: a decision, a stop or interrupt signal for
-- the turn, or (steer and interrupt) a message after its own.
-- KEYS: lease, inbox, decision, control. ARGV: token, turn id, messages the turn consumed,
-- wake on a new message (1/0).
-- Returns 0 when parked, 1 when the turn must look again at once, -1 when the lease was lost.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HEXISTS', KEYS[3], 'verdict') == 1 then return 1 end
local control = redis.call('GET', KEYS[4])
if control and string.sub(control, 1, #ARGV[2] + 1) == ARGV[2] .. '|' then return 1 end
if ARGV[4] == '1' and redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) then return 1 end
redis.call('DEL', KEYS[1])
return 0
