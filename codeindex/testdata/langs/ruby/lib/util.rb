module Util
  def self.twice(x)
    x * 2
  end
end
