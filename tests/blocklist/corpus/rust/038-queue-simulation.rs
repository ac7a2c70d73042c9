use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Linear congruential generator: deterministic, good enough for a demo.
struct Lcg(u64);
impl Lcg {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Exponentially distributed sample with the given mean.
    fn exp(&mut self, mean: f64) -> f64 { -mean * (1.0 - self.next_f64()).ln() }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind { Departure(usize), Arrival }

/// Discrete-event simulation of a bank with `tellers` servers and one queue.
fn simulate(tellers: usize, customers: usize, mean_arrival: f64, mean_service: f64, seed: u64) -> (f64, f64, usize) {
    let mut rng = Lcg(seed);
    // Times are stored in integer microseconds so they can live in a heap.
    let mut events: BinaryHeap<Reverse<(u64, Kind)>> = BinaryHeap::new();
    let to_us = |minutes: f64| (minutes * 60_000_000.0) as u64;
    events.push(Reverse((to_us(rng.exp(mean_arrival)), Kind::Arrival)));
    let mut busy = vec![false; tellers];
    let mut queue: VecDeque<u64> = VecDeque::new();
    let (mut arrived, mut total_wait, mut max_queue, mut last_time) = (0, 0u64, 0, 0u64);
    let mut busy_time = 0u64;

    while let Some(Reverse((now, kind))) = events.pop() {
        busy_time += (now - last_time) * busy.iter().filter(|&&b| b).count() as u64;
        last_time = now;
        match kind {
            Kind::Arrival => {
                arrived += 1;
                if arrived < customers {
                    events.push(Reverse((now + to_us(rng.exp(mean_arrival)), Kind::Arrival)));
                }
                match busy.iter().position(|b| !b) {
                    Some(t) => {
                        busy[t] = true;
                        events.push(Reverse((now + to_us(rng.exp(mean_service)), Kind::Departure(t))));
                    }
                    None => {
                        queue.push_back(now);
                        max_queue = max_queue.max(queue.len());
                    }
                }
            }
            Kind::Departure(t) => match queue.pop_front() {
                Some(arrived_at) => {
                    total_wait += now - arrived_at;
                    events.push(Reverse((now + to_us(rng.exp(mean_service)), Kind::Departure(t))));
                }
                None => busy[t] = false,
            },
        }
    }
    let avg_wait_min = total_wait as f64 / customers as f64 / 60_000_000.0;
    let utilisation = busy_time as f64 / (last_time as f64 * tellers as f64);
    (avg_wait_min, utilisation, max_queue)
}

fn main() {
    println!("{:>7} {:>12} {:>12} {:>10}", "tellers", "avg wait", "utilisation", "max queue");
    for tellers in 1..=5 {
        let (wait, util, maxq) = simulate(tellers, 5_000, 1.0, 2.8, 42);
        println!("{:>7} {:>9.2} min {:>11.1}% {:>10}", tellers, wait, util * 100.0, maxq);
    }
    let mut rng = Lcg(7);
    let samples: Vec<f64> = (0..100_000).map(|_| rng.exp(3.0)).collect();
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    println!("sanity: exponential sample mean {:.3} (expected 3.0)", mean);
    assert!((mean - 3.0).abs() < 0.1);
}
