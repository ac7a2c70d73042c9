use std::collections::HashMap;
use std::iter;

/// An iterator over Fibonacci numbers that stops before overflowing.
struct Fib { a: u64, b: u64, done: bool }

impl Iterator for Fib {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        if self.done { return None; }
        let out = self.a;
        match self.a.checked_add(self.b) {
            Some(next) => { self.a = self.b; self.b = next; }
            None => self.done = true,
        }
        Some(out)
    }
}

fn fib() -> Fib { Fib { a: 0, b: 1, done: false } }

/// Extension trait: running totals for any iterator of numbers.
trait RunningSum: Iterator<Item = i64> + Sized {
    fn running_sum(self) -> iter::Scan<Self, i64, fn(&mut i64, i64) -> Option<i64>> {
        fn step(acc: &mut i64, x: i64) -> Option<i64> { *acc += x; Some(*acc) }
        self.scan(0, step as fn(&mut i64, i64) -> Option<i64>)
    }
}
impl<I: Iterator<Item = i64>> RunningSum for I {}

fn main() {
    println!("fibonacci count before u64 overflow: {}", fib().count());
    let even: Vec<u64> = fib().filter(|n| n % 2 == 0).skip(1).take(6).collect();
    println!("even fibs: {:?}", even);
    println!("first fib above 1e12: {:?}", fib().find(|&n| n > 1_000_000_000_000));

    let deltas = [5i64, -2, 8, -10, 3, 7];
    let totals: Vec<i64> = deltas.iter().copied().running_sum().collect();
    println!("running totals: {:?}", totals);

    let temps = [14.2, 15.1, 17.8, 21.4, 19.9, 16.0, 13.5];
    let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let (warmest_day, warmest) = days.iter().zip(temps.iter()).max_by(|a, b| a.1.partial_cmp(b.1).unwrap()).unwrap();
    println!("warmest: {} at {}°C", warmest_day, warmest);
    let moving: Vec<String> = temps.windows(3).map(|w| format!("{:.1}", w.iter().sum::<f64>() / 3.0)).collect();
    println!("3-day moving average: {}", moving.join(" "));
    let rising: Vec<_> = temps.windows(2).enumerate().filter(|(_, w)| w[1] > w[0]).map(|(i, _)| days[i + 1]).collect();
    println!("days warmer than the previous one: {:?}", rising);

    let words = "the quick brown fox jumps over the lazy dog the end";
    let by_len = words.split(' ').fold(HashMap::<usize, Vec<&str>>::new(), |mut m, w| {
        m.entry(w.len()).or_default().push(w);
        m
    });
    let mut lens: Vec<_> = by_len.into_iter().collect();
    lens.sort();
    println!("words by length: {:?}", lens);

    let (evens, odds): (Vec<u32>, Vec<u32>) = (1..=10).partition(|n| n % 2 == 0);
    println!("partition: evens={:?} odds={:?}", evens, odds);
    let pairs: Vec<(char, u32)> = "abc".chars().flat_map(|c| (1..=2).map(move |n| (c, n))).collect();
    println!("cartesian: {:?}", pairs);
    let chained: String = iter::repeat("ab").take(3).chain(iter::once("!")).collect();
    println!("chained: {}", chained);
    let mut counter = 0;
    let from_fn: Vec<i32> = iter::from_fn(|| { counter += 3; (counter < 20).then_some(counter) }).collect();
    println!("from_fn: {:?}", from_fn);
    let successors: Vec<u32> = iter::successors(Some(1u32), |&n| n.checked_mul(10)).collect();
    println!("powers of ten in u32: {:?}", successors);
    let total: u64 = (1..=100u64).rev().step_by(3).map(|n| n * n).sum();
    println!("sum of squares (every third from 100): {}", total);
    println!("any > 20°C: {}, all > 10°C: {}, position of 13.5: {:?}",
        temps.iter().any(|&t| t > 20.0), temps.iter().all(|&t| t > 10.0), temps.iter().position(|&t| t == 13.5));
}
