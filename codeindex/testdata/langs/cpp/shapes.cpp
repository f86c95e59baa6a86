#include "shapes.hpp"

namespace geo {
double Square::area() const { return side_ * side_; }

double total(const Square& s) { return s.twice(); }
}  // namespace geo
