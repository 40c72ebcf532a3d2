-- Appends a message to a conversation's inbox unless its event id was seen.
-- KEYS: seen (event id -> when, a ZSET), inbox. ARGV: event id, now (ms), how long an id
-- is remembered (ms), the message JSON.
-- Returns the inbox's length, or 0 for a duplicate.
local cutoff = tonumber(ARGV[2]) - tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
-- NX: an id already remembered keeps its first time and adds nothing (a duplicate).
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('RPUSH', KEYS[2], ARGV[4])
