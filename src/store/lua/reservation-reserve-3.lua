-- Admits a message against one owner's daily budget and reserves its turn's estimate, on
-- Redis's clock: of any number of messages arriving together, only those that find today's
-- usage plus the reservations under the budget get in (core/budget/reservation.ts
-- `admitTurn` is the same rule). An id that already holds a reservation is admitted again
-- as it was (a platform's retry of the same event). Both keys live as long as their latest
-- reservation.
-- KEYS: usage day, deadlines, tokens. ARGV: budget, estimate, ttl ms, id.
-- Returns {admitted 1/0, tokens used today, tokens reserved (this one included when admitted)}.
--- @include "includes/reservations"
if redis.replicate_commands then redis.replicate_commands() end
local now = now_ms()
prune(KEYS[2], KEYS[3], now)
local counted = redis.pcall('HMGET', KEYS[1], 'prompt', 'completion')
local used = 0
if not counted.err then used = (tonumber(counted[1]) or 0) + (tonumber(counted[2]) or 0) end
local reserved = held(KEYS[2], KEYS[3])
if redis.call('ZSCORE', KEYS[2], ARGV[4]) then return {1, used, reserved} end
if used + reserved >= tonumber(ARGV[1]) then return {0, used, reserved} end
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[2])
for i = 2, 3 do
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return {1, used, reserved + tonumber(ARGV[2])}
