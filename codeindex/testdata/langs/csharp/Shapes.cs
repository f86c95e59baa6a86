using System;
using Acme.Util;

namespace Acme.Geo
{
    public interface IShape
    {
        double Area();
    }

    public class Square : IShape
    {
        private readonly double side;

        public Square(double side) { this.side = side; }

        public double Area() => Helpers.Twice(side);

        public string Describe() { return "area " + Area(); }
    }
}
