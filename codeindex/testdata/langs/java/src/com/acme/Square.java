package com.acme;

import java.util.List;

public class Square implements Shape {
    private final double side;

    public Square(double side) {
        this.side = side;
    }

    @Override
    public double area() {
        return Util.twice(side);
    }

    public String describe() {
        return "area " + area();
    }
}
