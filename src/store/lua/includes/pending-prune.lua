-- prune_expired(pending, order, now): drops the pending pairing requests whose codes
-- have expired, on Redis's clock (`now`), so processes whose clocks disagree prune the
-- same entries. `pending` is the hash of requests, `order` its user -> expiry ZSET.
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
local function prune_expired(pending, order, now)
  local expired = redis.call('ZRANGEBYSCORE', order, '-inf', now)
  for i = 1, #expired, 1000 do
    redis.call('HDEL', pending, unpack(expired, i, math.min(i + 999, #expired)))
  end
  redis.call('ZREMRANGEBYSCORE', order, '-inf', now)
end
