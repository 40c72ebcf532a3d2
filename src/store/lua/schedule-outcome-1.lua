-- Records what a schedule's last tick came to (queued, refused, paused ...), for /schedule list.
-- KEYS: the schedule's record hash. ARGV: outcome.
-- Returns 1 when recorded, 0 when the schedule is gone (no husk of a removed one is left).
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'last_outcome', ARGV[1])
return 1
