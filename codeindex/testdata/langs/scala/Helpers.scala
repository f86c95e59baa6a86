package acme.util

object Helpers {
  def twice(x: Double): Double = x * 2
}
