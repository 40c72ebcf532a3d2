-- Keeps a person's answer to "what was wrong?" with their vote, if the answer's record is
-- still there (an expired record is not brought back as a stub).
-- KEYS: the answer's record. ARGV: voter, text, at (ms).
-- Returns 1 when kept, 0 when the record is gone.
if redis.call('HEXISTS', KEYS[1], 'turn') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'why:' .. ARGV[1], ARGV[2], 'whyat:' .. ARGV[1], ARGV[3])
return 1
