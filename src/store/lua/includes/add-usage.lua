-- add_usage(day, month, dayTtl, monthTtl, prompt, cached, completion, cost): adds one
-- turn's usage to a day's and a month's counters. A counter gets its TTL when its
-- period's first turn creates it (`turns` comes back 1), so the TTL is set once per
-- period, not on every turn. Zero amounts ('0') change nothing.
local function add_usage(day, month, dayTtl, monthTtl, prompt, cached, completion, cost)
  local keys = {day, month}
  local ttls = {dayTtl, monthTtl}
  local amounts = {prompt = prompt, cached = cached, completion = completion, cost = cost}
  for i = 1, 2 do
    if redis.call('HINCRBY', keys[i], 'turns', 1) == 1 then redis.call('EXPIRE', keys[i], ttls[i]) end
    for _, field in ipairs({'prompt', 'cached', 'completion', 'cost'}) do
      if amounts[field] ~= '0' then redis.call('HINCRBY', keys[i], field, amounts[field]) end
    end
  end
end
