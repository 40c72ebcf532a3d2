-- Resumes a paused schedule. The ticks while it was paused are not missed: it starts
-- covered at now, so resuming never runs a catch-up for the pause.
-- KEYS: the schedule's record hash. ARGV: now (ms).
-- Returns 1 when it was paused, 0 when it was not (or is gone).
if redis.call('HEXISTS', KEYS[1], 'paused') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'paused', 'paused_at')
redis.call('HSET', KEYS[1], 'covered', ARGV[1])
return 1
