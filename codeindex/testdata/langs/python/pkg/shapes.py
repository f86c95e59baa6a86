import math
from .util import double as dbl


class Shape:
    def area(self):
        return 0

    def describe(self):
        return "area %d" % self.area()


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return dbl(self.side) * math.sqrt(1)
