-- Adds a reminder to a person's pending ones unless they have ARGV[3] pending already.
-- KEYS: the person's pending hash. ARGV: reminder id, reminder JSON, most pending.
-- Returns 1 added (or there already), 0 full.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
