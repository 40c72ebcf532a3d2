-- Takes up to `want` tokens from a bot's send bucket, shared by every process that sends
-- for the bot: the refill, the check and the take in one step, on Redis's clock.
-- KEYS: the bucket's HASH (tokens, at). ARGV: tokens a second, burst, want.
-- Returns {tokens granted, ms until the next token when fewer than `want` were granted, else 0}.
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
-- A failover may bring a clock that is behind: refill from the later of the two.
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  at = now
end
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
local wait = 0
if granted < want then wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate)) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
-- A bucket left alone refills to its burst, which is what a missing key means too.
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {granted, wait}
