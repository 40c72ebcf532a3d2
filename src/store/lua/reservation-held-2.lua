-- What one owner's live reservations hold together. Read-only apart from pruning what expired.
-- KEYS: deadlines, tokens. Returns the sum of tokens.
--- @include "includes/reservations"
if redis.replicate_commands then redis.replicate_commands() end
prune(KEYS[1], KEYS[2], now_ms())
return held(KEYS[1], KEYS[2])
