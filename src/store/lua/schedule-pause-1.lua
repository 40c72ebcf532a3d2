-- Pauses a schedule with a reason, once.
-- KEYS: the schedule's record hash. ARGV: reason, now (ms).
-- Returns 1 when this call paused it (tell the owner), 0 when it was paused already or is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'paused') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'paused', ARGV[1], 'paused_at', ARGV[2])
return 1
