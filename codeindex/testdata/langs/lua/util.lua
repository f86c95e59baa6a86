local M = {}

function M.twice(x)
  return x * 2
end

return M
