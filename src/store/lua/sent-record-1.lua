-- Records the message a delivery became. The first message recorded wins; an intent
-- (a send on the way, or one whose worker died) does not count.
-- KEYS: the delivery's key. ARGV: the message id just sent, ttl (ms).
-- Returns the message id that won.
local held = redis.call('GET', KEYS[1])
-- 'sending' is SENDING of src/platforms/telegram/sent-ledger.ts: what an intent holds.
if held and held ~= 'sending' then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
