-- Records the first decision on the checkpoint's pending approval request. The clock wins
-- over a person who decides after the request expired: that records 'expired'.
-- KEYS: decision, checkpoint. ARGV: request id, verdict, user, name, at (ms), ttl (ms).
-- Returns {outcome, verdict, user, name, at}: outcome is 'recorded' (this decision is the
-- one), 'repeat' (the same person gave the same verdict before: a replayed click, nothing
-- changes), 'decided' (another decision came first, returned), or 'unknown' (no pending
-- request has this id).
local first = redis.call('HMGET', KEYS[1], 'verdict', 'user', 'name', 'at')
if first[1] then
  local outcome = 'decided'
  if first[1] == ARGV[2] and first[2] == ARGV[3] then outcome = 'repeat' end
  return {outcome, first[1], first[2] or '', first[3] or '', first[4] or '0'}
end
local stored = redis.call('GET', KEYS[2])
if not stored then return {'unknown'} end
local ok, checkpoint = pcall(cjson.decode, stored)
if not ok or type(checkpoint) ~= 'table' or type(checkpoint.approval) ~= 'table'
  or checkpoint.approval.id ~= ARGV[1] then
  return {'unknown'}
end
local verdict, user, name = ARGV[2], ARGV[3], ARGV[4]
local person = verdict == 'approved' or verdict == 'approved_conversation' or verdict == 'denied'
if person and tonumber(checkpoint.approval.expiresAt or 0) <= tonumber(ARGV[5]) then
  verdict, user, name = 'expired', '', ''
end
redis.call('HSET', KEYS[1], 'verdict', verdict, 'user', user, 'name', name, 'at', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if verdict ~= ARGV[2] then return {'decided', verdict, user, name, ARGV[5]} end
return {'recorded', verdict, user, name, ARGV[5]}
