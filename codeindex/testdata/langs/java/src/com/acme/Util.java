package com.acme;

final class Util {
    static double twice(double x) {
        return x * 2;
    }

    static Square unit() {
        return new Square(1);
    }
}
