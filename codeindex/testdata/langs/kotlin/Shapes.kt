package acme.geo

import acme.util.twice

interface Shape {
    fun area(): Double
}

open class Square(private val side: Double) : Shape {
    override fun area(): Double = twice(side)

    fun describe(): String = "area " + area()
}

fun make(): Square = Square(2.0)
