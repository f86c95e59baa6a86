pub trait Shape {
    fn area(&self) -> f64;
}

pub struct Square {
    side: f64,
}

impl Square {
    pub fn new(side: f64) -> Self {
        Self { side }
    }

    fn twice(&self) -> f64 {
        self.side * 2.0
    }
}

impl Shape for Square {
    fn area(&self) -> f64 {
        self.twice() * self.side / 2.0
    }
}
