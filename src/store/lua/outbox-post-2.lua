-- Adds one answer to the console's outbox stream, once per idempotency key: the
-- key and the stream entry are written together, so a retried post finds its entry.
-- KEYS: the post's sent key, the outbox stream.
-- ARGV: conversation, text, stream max length, ttl of the sent key (ms), idempotency key,
-- kind (post, file), file path, controls ('1' or '').
-- Returns the stream entry's id (the first one, for a repeat).
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'kind', ARGV[6], 'conversation', ARGV[1], 'text', ARGV[2], 'key', ARGV[5], 'path', ARGV[7], 'controls', ARGV[8])
redis.call('SET', KEYS[1], id, 'PX', ARGV[4])
return id
