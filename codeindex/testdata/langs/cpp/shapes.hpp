#pragma once
namespace geo {
class Shape {
 public:
  virtual double area() const = 0;
};

class Square : public Shape {
 public:
  explicit Square(double s) : side_(s) {}
  double area() const override;
  double twice() const { return area() * 2; }
 private:
  double side_;
};
}  // namespace geo
