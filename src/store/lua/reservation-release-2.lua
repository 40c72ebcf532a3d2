-- Drops one owner's reservations of these message ids.
-- KEYS: deadlines, tokens. ARGV: ids. Returns 0.
--- @include "includes/reservations"
release(KEYS[1], KEYS[2], ARGV, 1)
return 0
