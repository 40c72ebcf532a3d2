-- Records one person's vote on a rated answer: one vote per person per answer, which a
-- later vote replaces. The same vote again changes nothing (a second click of the same
-- button, a click redelivered by the platform or taken by a second ingress).
-- KEYS: the answer's record, the voter's "what was wrong?" wait.
-- ARGV: voter, vote ('up' or 'down'), name, at (ms), turn id, ask ('1': ask why on a first
-- 'down'), wait (ms).
-- Returns {outcome, previous, ask}: outcome is 'recorded' (the vote changed: previous is ''
-- for a first vote), 'same' (it was already this vote) or 'expired' (no record: the answer
-- is too old, or was never rated); ask is '1' when this 'down' opens the wait.
if redis.call('HEXISTS', KEYS[1], 'turn') == 0 then return {'expired', '', '0'} end
local field = 'vote:' .. ARGV[1]
local previous = redis.call('HGET', KEYS[1], field)
if previous == ARGV[2] then return {'same', previous, '0'} end
redis.call('HSET', KEYS[1], field, ARGV[2], 'voted:' .. ARGV[1], ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'name:' .. ARGV[1], ARGV[3]) end
local ask = '0'
if ARGV[2] == 'down' then
  -- Asked once per person per answer: a change back to down does not ask again.
  if ARGV[6] == '1' and redis.call('HSETNX', KEYS[1], 'asked:' .. ARGV[1], '1') == 1 then
    redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[7])
    ask = '1'
  end
else
  -- A change of mind to up ends a wait for why it was down.
  redis.call('DEL', KEYS[2])
end
return {'recorded', previous or '', ask}
