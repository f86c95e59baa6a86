pub mod shapes;

use crate::shapes::{Shape, Square};

pub fn total(s: &Square) -> f64 {
    helper(s.area())
}

fn helper(x: f64) -> f64 {
    x
}

pub fn make() -> Square {
    Square::new(2.0)
}
