-- Lets go of a claim that did not finish, so a redelivery is taken.
-- KEYS: the event's key. Returns 0.
local state = redis.call('GET', KEYS[1])
if state and string.sub(state, 1, 6) == 'taking' then redis.call('DEL', KEYS[1]) end
return 0
