-- Records a rated answer in its conversation's slot: the answer's record (its fields, a
-- TTL) and the conversation's last rated answer, together; the index to it lives in
-- another slot and is written beside this script.
-- KEYS: the answer's record, the conversation's last rated answer.
-- ARGV: ttl (ms), feedback id, then the record's field, value pairs. Returns 1.
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
return 1
