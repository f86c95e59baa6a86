from pkg.shapes import Square
import pkg.util


def run():
    s = Square(3)
    print(s.describe())
    return pkg.util.double(2)
