-- A one-line text sparkline (▁▂▃▄▅▆▇█), for the Context Report buffer: the tokens of each
-- segment in the order the model reads them, so where the context goes shows at a glance.
local M = {}

local BARS = { '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█' }

---@param values number[]
---@param width? integer at most this many cells (values are summed into buckets); default 60
---@return string
function M.line(values, width)
  width = width or 60
  local n = #values
  if n == 0 then
    return ''
  end
  local buckets = {}
  local per = math.max(1, math.ceil(n / width))
  for i = 1, n, per do
    local sum = 0
    for j = i, math.min(n, i + per - 1) do
      sum = sum + (tonumber(values[j]) or 0)
    end
    buckets[#buckets + 1] = sum
  end
  local max = 0
  for _, v in ipairs(buckets) do
    max = math.max(max, v)
  end
  local out = {}
  for i, v in ipairs(buckets) do
    local k = max > 0 and math.floor(v / max * (#BARS - 1) + 0.5) + 1 or 1
    out[i] = BARS[k]
  end
  return table.concat(out)
end

return M
