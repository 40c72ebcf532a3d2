-- The turn's real usage replaces its reservations in one step: the budget never sees
-- both, nor neither.
-- KEYS: usage day, usage month, deadlines, tokens. ARGV: the counting's six (as add_usage
-- takes them), then ids. Returns 1.
--- @include "includes/add-usage"
--- @include "includes/reservations"
add_usage(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
release(KEYS[3], KEYS[4], ARGV, 7)
return 1
