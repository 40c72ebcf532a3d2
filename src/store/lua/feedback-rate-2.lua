-- Records a rated answer in its conversation's slot: the answer's record (its fields, a
-- TTL) and the conversation's last rated answer, together; the index to it lives in
-- another slot and is written beside this script.
-- KEYS: the answer's record, the conversation's last rated answer.
-- ARGV: ttl (ms), feedback id, then the record's field, value pairs. Returns 1.
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
for i = 3, #ARGV, 1000 do
  redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
return 1
