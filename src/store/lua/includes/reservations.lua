-- Functions over one owner's token-budget reservations (a deadlines ZSET and a tokens hash).
-- `prune` drops those whose deadline passed on Redis's clock, so a message lost before its
-- turn, or a worker that crashed for good, holds a budget for at most its reservation's
-- lifetime. `release` drops ids from the `from`-th argument on. `held` sums what the live
-- reservations hold, read through the deadlines so a stray amount never counts.
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- A reservation is an id in both, written and dropped together: ids of which the deadlines
-- hold none (a message admitted with no budget set) leave the tokens alone.
local function drop(deadlines, tokens, ids, from, to)
  for i = from, to, 1000 do
    local last = math.min(i + 1000 - 1, to)
    if redis.call('ZREM', deadlines, unpack(ids, i, last)) > 0 then
      redis.call('HDEL', tokens, unpack(ids, i, last))
    end
  end
end
local function prune(deadlines, tokens, now)
  local gone = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now)
  if #gone > 0 then drop(deadlines, tokens, gone, 1, #gone) end
end
local function release(deadlines, tokens, args, from)
  if #args >= from then drop(deadlines, tokens, args, from, #args) end
end
local function held(deadlines, tokens)
  local ids = redis.call('ZRANGE', deadlines, 0, -1)
  local sum = 0
  for i = 1, #ids, 1000 do
    local amounts = redis.call('HMGET', tokens, unpack(ids, i, math.min(i + 1000 - 1, #ids)))
    for _, amount in ipairs(amounts) do sum = sum + (tonumber(amount) or 0) end
  end
  return sum
end
