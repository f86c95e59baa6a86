pub fn twice(x: f64) f64 {
    return x * 2;
}
