-- One page of the live pending pairing requests, newest first, after pruning the expired ones.
-- KEYS: pending, pending order. ARGV: offset, count.
-- Returns Redis's now, the count, then user, expiry, request JSON for each.
--- @include "includes/redis-now"
--- @include "includes/pending-prune"
prune_expired(KEYS[1], KEYS[2], now)
local total = redis.call('ZCARD', KEYS[2])
local first = tonumber(ARGV[1])
local page = redis.call('ZREVRANGE', KEYS[2], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local reply = { now, total }
for i = 1, #page, 2 do
  reply[#reply + 1] = page[i]
  reply[#reply + 1] = page[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[1], page[i]) or ''
end
return reply
