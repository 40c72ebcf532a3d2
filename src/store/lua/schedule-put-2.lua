-- Defines a schedule, or redefines it keeping its state. A new schedule, or one whose
-- timing changed, starts covered at ARGV[3]: the ticks before it are not missed, they
-- never were this schedule's.
-- KEYS: the schedule's record hash, the id set.
-- ARGV: definition JSON, timing JSON, now (ms), id.
-- Returns 1 when the timing is new (the job scheduler must be made again), 0 otherwise.
local timing = redis.call('HGET', KEYS[1], 'timing')
redis.call('HSET', KEYS[1], 'def', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[4])
if timing == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'timing', ARGV[2], 'covered', ARGV[3])
redis.call('HSETNX', KEYS[1], 'runs', 0)
redis.call('HDEL', KEYS[1], 'ended')
return 1
