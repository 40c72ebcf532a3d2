-- Gives a requester a new pairing code, in place of the one they had (whose hash ARGV[1]
-- says, checked so two ingress processes cannot both issue one): at most one live code per
-- requester. In the same step it prunes expired requests and keeps at most ARGV[6] waiting,
-- dropping the oldest, so the list stays bounded however many strangers write.
-- KEYS: codeOf, new code, old code (or the new one again), pending, pending order.
-- ARGV: current code hash ('' for none), new code hash, request JSON, user, ttl (ms), most pending.
-- Returns 1 when issued, 0 when another process issued meanwhile.
--- @include "includes/redis-now"
--- @include "includes/pending-prune"
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
if KEYS[3] ~= KEYS[2] then redis.call('DEL', KEYS[3]) end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
-- A hash without its order was written before the order existed: start it afresh.
if redis.call('EXISTS', KEYS[5]) == 0 then redis.call('DEL', KEYS[4]) end
prune_expired(KEYS[4], KEYS[5], now)
redis.call('HSET', KEYS[4], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[5]), ARGV[4])
local over = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[6])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[5], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[5], 0, over - 1)
  -- 1000 is UNPACK_CHUNK of src/store/lua.ts.
  for i = 1, #oldest, 1000 do
    redis.call('HDEL', KEYS[4], unpack(oldest, i, math.min(i + 999, #oldest)))
  end
end
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('PEXPIRE', KEYS[5], ARGV[5])
return 1
