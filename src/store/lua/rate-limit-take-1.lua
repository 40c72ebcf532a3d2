-- Counts one message against a sliding-window limit if fewer than the limit are in the
-- window: the check and the count in one step, on Redis's clock.
-- KEYS: the limit's ZSET. ARGV: limit, window (ms), the message's unique member.
-- Returns {admitted 1/0, messages in the window, ms until the oldest leaves (0 when admitted)}.
--- @include "includes/redis-now"
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if used < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, used + 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
if reset < 1 then reset = 1 end
return {0, used, reset}
