-- What a turn finds at a step boundary: the signal for it, if any, and (steering)
-- the messages that arrived since it took its own.
-- KEYS: control, inbox. ARGV: turn id, first unconsumed inbox index, steer (1/0).
local control = redis.call('GET', KEYS[1])
local signal = false
if control then
  local at = string.find(control, '|', 1, true)
  if at and string.sub(control, 1, at - 1) == ARGV[1] then signal = string.sub(control, at + 1) end
end
local arrived = {}
if ARGV[3] == '1' and not signal then arrived = redis.call('LRANGE', KEYS[2], ARGV[2], -1) end
return {signal, arrived}
