-- Books up to `want` sends from a bot's send bucket, shared by every process that sends for
-- the bot: the refill, the check and the booking in one step, on Redis's clock. Each booked
-- send is due at the first whole millisecond at which a plain token bucket would let it go,
-- the sends booked before it counted; bookings reach at most `burst / rate` seconds ahead.
-- The HASH holds the bucket's level at `at`: now, or the due time of the last send booked.
-- KEYS: the bucket's HASH (tokens, at). ARGV: tokens a second, burst, want.
-- Returns {ms until more could be booked (0: now), then each booked send's delay in ms from
--          now, in order}.
--- @include "includes/redis-now"
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  at = now
end
local horizon = now + math.ceil(burst * 1000 / rate)
-- When the next send is due after the last one booked, and the level just before it.
local function next_due()
  if tokens >= 1 then return at, tokens end
  local due = at + math.ceil((1 - tokens) * 1000 / rate)
  return due, math.min(burst, tokens + (due - at) * rate / 1000)
end
local reply = {0}
local booked = 0
while booked < want do
  local due, level = next_due()
  if due > horizon then break end
  tokens = level - 1
  at = due
  booked = booked + 1
  reply[booked + 1] = due - now
end
-- When as many more could be booked as are still wanted (all booked: as many again), so a
-- process that asks then books several on one trip.
local need = want - booked
if need == 0 then need = want end
local due = next_due()
local wait = math.max(0, math.ceil(due + (need - 1) * 1000 / rate - horizon))
if booked < want then wait = math.max(1, wait) end
reply[1] = wait
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
-- A bucket left alone refills to its burst, which is what a missing key means too.
redis.call('PEXPIRE', KEYS[1], (at - now) + math.ceil((burst + 1) * 1000 / rate) + 1000)
return reply
