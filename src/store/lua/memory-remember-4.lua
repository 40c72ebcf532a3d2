-- Adds or replaces a note. The cap is checked in the same script that adds, so concurrent
-- remembers can never exceed it. A note under an existing topic replaces that note in place
-- and does not count against the cap. With a call key (ARGV[4]), a repeat of the same tool
-- call (a resumed turn) finds the note its first run stored instead of adding another.
-- KEYS: notes, topics, seq, calls. ARGV: note JSON, most notes, topic ('' for none),
-- call key ('' for none).
-- Returns {kind, id, count}; kind 'full' means nothing was stored.
local call = ARGV[4]
if call ~= '' then
  local seen = redis.call('HGET', KEYS[4], call)
  if seen and redis.call('HEXISTS', KEYS[1], seen) == 1 then
    return {'added', seen, redis.call('HLEN', KEYS[1])}
  end
end
local topic = ARGV[3]
if topic ~= '' then
  local existing = redis.call('HGET', KEYS[2], topic)
  if existing and redis.call('HEXISTS', KEYS[1], existing) == 1 then
    redis.call('HSET', KEYS[1], existing, ARGV[1])
    return {'replaced', existing, redis.call('HLEN', KEYS[1])}
  end
end
local count = redis.call('HLEN', KEYS[1])
if count >= tonumber(ARGV[2]) then return {'full', '', count} end
local id = 'm' .. redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], id, ARGV[1])
if topic ~= '' then redis.call('HSET', KEYS[2], topic, id) end
if call ~= '' then
  redis.call('HSET', KEYS[4], call, id)
  -- A week: a resumed turn repeats its calls within minutes.
  redis.call('PEXPIRE', KEYS[4], 604800000)
end
return {'added', id, count + 1}
