namespace Acme.Util
{
    public static class Helpers
    {
        public static double Twice(double x) { return x * 2; }
    }
}
