-- Starts a turn: appends the person's messages to history and stores the turn's first
-- checkpoint, only if no turn is in progress, and swaps in the turn's contract hash as the
-- conversation's last one.
-- KEYS: checkpoint, history, contract. ARGV: checkpoint JSON, contract hash, messages...
-- Returns {1 began / 0 refused, the previous contract hash or false}.
-- NX: the check and the write in one command; nothing else is written when it refuses.
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return {0, false} end
-- 1000 is UNPACK_CHUNK of src/store/lua.ts: unpack is limited by the C stack.
for i = 3, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return {1, redis.call('SET', KEYS[3], ARGV[2], 'GET') or false}
