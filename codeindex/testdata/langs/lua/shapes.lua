local util = require("util")

local Square = {}
Square.__index = Square

function Square.new(side)
  return setmetatable({ side = side }, Square)
end

function Square:area()
  return util.twice(self.side) * self:half()
end

function Square:half()
  return 0.5
end

local function make()
  return Square.new(2)
end

return { Square = Square, make = make }
