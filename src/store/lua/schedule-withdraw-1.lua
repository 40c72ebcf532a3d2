-- Takes back a run a tick counted whose message never ran (its schedule was paused or
-- removed before the run's turn began), so `runs`, and `max_runs` after a resume, count runs made.
-- KEYS: the schedule's record hash.
-- Returns the runs left, or -1 when the schedule is gone (a removed one is not brought back as a husk).
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local runs = tonumber(redis.call('HGET', KEYS[1], 'runs') or '0')
if runs <= 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], 'runs', -1)
