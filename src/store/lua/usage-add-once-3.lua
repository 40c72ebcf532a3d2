-- Counts one turn's usage in the conversation's day and month counters, once: the guard
-- remembers the last turn counted, so a turn already recorded is not counted again.
-- KEYS: day, month, guard. ARGV: day ttl (s), month ttl (s), prompt, cached, completion,
-- cost, turn id. Returns 1 when counted, 0 when the turn was counted before.
--- @include "includes/add-usage"
if redis.call('SET', KEYS[3], ARGV[7], 'EX', ARGV[1], 'GET') == ARGV[7] then
  return 0
end
add_usage(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 1
