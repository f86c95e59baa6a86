require_relative "util"

module Geo
  class Shape
    def area
      0
    end
  end

  class Square < Shape
    include Comparable

    def initialize(side)
      @side = side
    end

    def area
      Util.twice(@side)
    end

    def describe
      "area #{area}"
    end
  end
end
