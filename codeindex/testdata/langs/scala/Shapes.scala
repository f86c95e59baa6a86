package acme.geo

import acme.util.Helpers

trait Shape {
  def area(): Double
}

class Square(side: Double) extends Shape {
  def area(): Double = Helpers.twice(side)
  def describe(): String = "area " + area()
}

object Square {
  def unit(): Square = new Square(1)
}
