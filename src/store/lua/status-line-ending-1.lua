-- Marks a status line's record as being deleted, before the run that owns it deletes the
-- message and then the record. A run whose lease lapsed may hear its post back in between: the
-- post may have reached the platform after the delete and made the message anew, and a record
-- still standing would let it keep that message (status-line-ref-1.lua), left beside the
-- answer once the record goes. Marked, the late run deletes what it made.
-- KEYS: the turn's status line record. ARGV: the idempotency key the line was posted under.
-- Returns 1 when marked, 0 when the record is gone or holds another key.
if redis.call('HGET', KEYS[1], 'key') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'ending', '1')
return 1
