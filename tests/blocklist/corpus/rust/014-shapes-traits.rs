use std::f64::consts::PI;
use std::fmt;

/// Common behaviour for everything that can be drawn on the canvas.
trait Shape: fmt::Debug {
    fn name(&self) -> &'static str;
    fn area(&self) -> f64;
    fn perimeter(&self) -> f64;
    /// Default method: a compact summary line.
    fn describe(&self) -> String {
        format!("{:<9} area={:>8.3} perimeter={:>7.3}", self.name(), self.area(), self.perimeter())
    }
}

#[derive(Debug)]
struct Circle { r: f64 }
#[derive(Debug)]
struct Rect { w: f64, h: f64 }
#[derive(Debug)]
struct Triangle { a: f64, b: f64, c: f64 }

impl Shape for Circle {
    fn name(&self) -> &'static str { "circle" }
    fn area(&self) -> f64 { PI * self.r * self.r }
    fn perimeter(&self) -> f64 { 2.0 * PI * self.r }
}

impl Shape for Rect {
    fn name(&self) -> &'static str { if self.w == self.h { "square" } else { "rectangle" } }
    fn area(&self) -> f64 { self.w * self.h }
    fn perimeter(&self) -> f64 { 2.0 * (self.w + self.h) }
}

impl Triangle {
    fn new(a: f64, b: f64, c: f64) -> Result<Self, String> {
        let mut s = [a, b, c];
        s.sort_by(|x, y| x.partial_cmp(y).unwrap());
        if s[0] + s[1] <= s[2] {
            return Err(format!("sides {} {} {} violate the triangle inequality", a, b, c));
        }
        Ok(Triangle { a, b, c })
    }
}

impl Shape for Triangle {
    fn name(&self) -> &'static str { "triangle" }
    fn area(&self) -> f64 {
        let s = self.perimeter() / 2.0; // Heron's formula
        (s * (s - self.a) * (s - self.b) * (s - self.c)).sqrt()
    }
    fn perimeter(&self) -> f64 { self.a + self.b + self.c }
}

/// Generic helper using static dispatch.
fn largest<'a, T: Shape + ?Sized>(shapes: &'a [Box<T>]) -> Option<&'a T> {
    shapes.iter().map(|b| b.as_ref()).max_by(|x, y| x.area().partial_cmp(&y.area()).unwrap())
}

fn total_area(shapes: &[&dyn Shape]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

fn main() {
    let mut shapes: Vec<Box<dyn Shape>> = vec![
        Box::new(Circle { r: 1.5 }),
        Box::new(Rect { w: 3.0, h: 4.0 }),
        Box::new(Rect { w: 2.0, h: 2.0 }),
    ];
    for sides in [(3.0, 4.0, 5.0), (1.0, 2.0, 10.0)] {
        match Triangle::new(sides.0, sides.1, sides.2) {
            Ok(t) => shapes.push(Box::new(t)),
            Err(e) => println!("skipping: {}", e),
        }
    }
    for s in &shapes {
        println!("{}", s.describe());
    }
    if let Some(big) = largest(&shapes) {
        println!("largest: {:?}", big);
    }
    let refs: Vec<&dyn Shape> = shapes.iter().map(|b| b.as_ref()).collect();
    println!("total area: {:.3}", total_area(&refs));
    shapes.sort_by(|a, b| a.perimeter().partial_cmp(&b.perimeter()).unwrap());
    let order: Vec<&str> = shapes.iter().map(|s| s.name()).collect();
    println!("by perimeter: {}", order.join(" < "));
}
