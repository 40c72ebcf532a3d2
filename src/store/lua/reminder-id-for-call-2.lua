-- The id a tool call gets: the one it got before when the call is a resumed turn's repeat
-- (same call key), else the next number.
-- KEYS: call, seq. ARGV: how long a call's id is remembered (ms). Returns the id ('r<n>').
local id = redis.call('GET', KEYS[1])
if id then return id end
id = 'r' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], id, 'PX', ARGV[1])
return id
