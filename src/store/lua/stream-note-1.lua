-- Records fields of a turn's streamed message (its ref, the text it shows, when a native
-- stream starts). The hash gets its TTL when a field is new, which its first write always
-- is: a draft's text written again and again is one command, not a MULTI of three.
-- KEYS: the turn's stream hash. ARGV: ttl (ms), then field, value pairs.
-- Returns the number of fields that were new.
local added = 0
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
for i = 2, #ARGV, 1000 do
  added = added + redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
if added > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return added
