-- Records a status line's message ref, only while the record is still the one the post was
-- made under: a run whose lease lapsed hears its post back after the run that took the turn
-- over deleted the line and its record, and must not bring the record back (forever: a bare
-- HSET on a deleted key has no TTL). Nor while that run is deleting the line (the record marked
-- `ending`, see status-line-ending-1.lua): the post may have made a message after the delete.
-- KEYS: the turn's status line record. ARGV: the post's idempotency key, the message ref.
-- Returns 1 when recorded, 0 when the record is gone, holds another key or is ending.
if redis.call('HGET', KEYS[1], 'key') ~= ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'ending') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'ref', ARGV[2])
return 1
