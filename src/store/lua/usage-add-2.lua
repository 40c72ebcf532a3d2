-- Counts one turn's usage in one owner's day and month counters.
-- KEYS: day, month. ARGV: day ttl (s), month ttl (s), prompt, cached, completion, cost.
-- Returns 1.
--- @include "includes/add-usage"
add_usage(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 1
