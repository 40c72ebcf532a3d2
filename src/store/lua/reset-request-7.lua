-- `/new`: with no worker on the conversation, resets it now; else leaves a marker the worker
-- applies at its next turn boundary (an 'all' is never weakened to 'history' by a later `/new`).
-- KEYS: lease, checkpoint, history, trimmed, intent, settings, marker. ARGV: kind.
-- Returns 'now' or 'later'.
--- @include "includes/apply-reset"
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  if redis.call('GET', KEYS[7]) ~= 'all' then redis.call('SET', KEYS[7], ARGV[1]) end
  return 'later'
end
apply_reset(ARGV[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
redis.call('DEL', KEYS[7])
return 'now'
