-- Records what a person looks at in a thread of Slack's assistant pane, unless a newer event did.
-- KEYS: the thread's hash. ARGV: ttl (s), the event's order (its event_ts, padded so that strings
-- compare as times; "" when Slack sent none), then field, value pairs.
-- Slack redelivers an event it thinks was lost, after the person may have moved on: the older
-- context must not overwrite the newer one. Returns 1 when written, 0 when a newer event was.
local stored = redis.call('HGET', KEYS[1], 'order')
if stored and ARGV[2] ~= '' and stored > ARGV[2] then return 0 end
-- A handful of fields: one HSET each, all in this one atomic script.
for i = 3, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'order', ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
