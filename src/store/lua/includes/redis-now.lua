-- `now`: Redis's clock in ms, so processes whose clocks disagree see one time.
-- Scripts that write after reading TIME replicate their effects, not the script.
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
