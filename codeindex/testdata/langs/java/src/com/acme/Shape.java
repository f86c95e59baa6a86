package com.acme;

public interface Shape {
    double area();
}
