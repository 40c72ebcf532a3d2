-- Takes one tick job's decision, once, whatever the crashes and races.
-- KEYS: the schedule's record hash.
-- ARGV: job id, the `covered` the decision was made from, the new `covered`,
--       1 to count a run (0: the ticks are skipped), the run's tick, its missed ticks, now.
-- Returns {'again', tick, missed} when this job claimed its run before (a retried job:
-- enqueue the same run again, the event id dedupes it); {'claimed', runs} for a new run;
-- {'skipped'}; {'conflict'} when another job moved `covered` meanwhile (decide again);
-- {'paused'} or {'ended'} (or {'gone'}) when the schedule takes no runs.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local state = redis.call('HMGET', KEYS[1], 'paused', 'ended', 'claim_job', 'claim_tick', 'claim_missed', 'covered')
if state[3] == ARGV[1] then return {'again', state[4], state[5]} end
if state[1] then return {'paused'} end
if state[2] then return {'ended'} end
if state[6] ~= ARGV[2] then return {'conflict'} end
redis.call('HSET', KEYS[1], 'covered', ARGV[3])
if ARGV[4] ~= '1' then return {'skipped'} end
local runs = redis.call('HINCRBY', KEYS[1], 'runs', 1)
redis.call('HSET', KEYS[1], 'claim_job', ARGV[1], 'claim_tick', ARGV[5], 'claim_missed', ARGV[6], 'last_run', ARGV[7])
return {'claimed', runs}
