-- Records the idempotency key a status line is about to be posted under, only while the run
-- still holds the conversation's lease. A run whose lease lapsed (slow, not dead) may come to
-- its post after the run that took the turn over answered and deleted the line with its
-- record: posted then, the line would stand beside the answer with no run left to delete it.
-- Checked here, with the record the post is made under, so a run that takes the turn over
-- either finds this key in the record (and deletes the line posted under it) or this run
-- posts nothing.
-- KEYS: the conversation's lease, the turn's status line record.
-- ARGV: the run's lease token ('' when no lease is held: nothing to check), the post's
-- idempotency key, the record's TTL (ms).
-- Returns 1 when recorded (post the line), 0 when the lease is another run's or gone.
-- A run holding the lease owns the line: a mark left by a run whose delete failed goes.
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[2], 'ending')
redis.call('HSET', KEYS[2], 'key', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
