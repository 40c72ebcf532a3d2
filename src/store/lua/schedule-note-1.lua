-- Records what a schedule's latest run came to (queued, skipped by a limit, paused), for lists.
-- KEYS: the schedule's record hash. ARGV: outcome, now (ms).
-- Returns 1 when recorded, 0 when the schedule is gone (a removed one is not brought back as a husk).
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'outcome', ARGV[1], 'outcome_at', ARGV[2])
return 1
