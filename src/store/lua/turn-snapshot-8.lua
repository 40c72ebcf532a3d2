-- Takes the lease (when asked) and reads everything of the conversation a turn boundary
-- needs, in one script: a turn starts with one round trip for its own keys. A `/new` that
-- came while a worker held the conversation is applied here, between turns, before
-- anything is read (never under a turn in progress). Keys of another type than expected
-- are reported by type, for the stores to report as damage, never a crash.
-- KEYS: lease, checkpoint, inbox, history, trimmed, intent, settings, reset.
-- ARGV: token, ttl, take (1/0).
-- Returns {0, holder, pttl} when another holds the lease; else {1, checkpoint type,
-- checkpoint, inbox, history, trimmed, intent type, intent, settings}.
--- @include "includes/apply-reset"
-- A free lease (the usual case) is taken by the SET NX alone; a held one is looked at.
if ARGV[3] == '1' and not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local holder = redis.call('GET', KEYS[1])
  if holder and holder ~= ARGV[1] then return {0, holder, redis.call('PTTL', KEYS[1])} end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
local checkpointType = redis.call('TYPE', KEYS[2])['ok']
if checkpointType == 'none' and redis.call('TYPE', KEYS[8])['ok'] == 'string' then
  apply_reset(redis.call('GET', KEYS[8]), KEYS[4], KEYS[5], KEYS[6], KEYS[7])
  redis.call('DEL', KEYS[8])
end
local checkpoint = false
if checkpointType == 'string' then checkpoint = redis.call('GET', KEYS[2]) end
local intent = redis.pcall('HGETALL', KEYS[6])
local intentType = 'hash'
if intent.err then intentType = redis.call('TYPE', KEYS[6])['ok'] intent = {} end
local settings = redis.pcall('HGETALL', KEYS[7])
if settings.err then settings = {'__wrongtype__', redis.call('TYPE', KEYS[7])['ok']} end
return {1, checkpointType, checkpoint, redis.call('LRANGE', KEYS[3], 0, -1),
  redis.call('LRANGE', KEYS[4], 0, -1), redis.call('GET', KEYS[5]) or false, intentType, intent,
  settings}
