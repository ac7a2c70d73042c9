use std::thread;
use std::time::Instant;

/// Simple sieve of Eratosthenes for the base primes up to sqrt(limit).
fn small_primes(limit: usize) -> Vec<usize> {
    let mut is = vec![true; limit + 1];
    is[0] = false;
    if limit >= 1 { is[1] = false; }
    let mut i = 2;
    while i * i <= limit {
        if is[i] { (i * i..=limit).step_by(i).for_each(|j| is[j] = false); }
        i += 1;
    }
    is.iter().enumerate().filter(|(_, &p)| p).map(|(n, _)| n).collect()
}

/// Marks composites in [lo, hi) using the base primes; returns the primes found.
fn segment(lo: usize, hi: usize, base: &[usize]) -> Vec<usize> {
    let mut is = vec![true; hi - lo];
    for &p in base {
        let start = (p * p).max((lo + p - 1) / p * p);
        for m in (start..hi).step_by(p) { is[m - lo] = false; }
    }
    (lo..hi).filter(|&n| n >= 2 && is[n - lo]).collect()
}

fn main() {
    let limit = 2_000_000;
    let threads = thread::available_parallelism().map(|n| n.get()).unwrap_or(2).min(4);
    let base = small_primes((limit as f64).sqrt() as usize + 1);
    let chunk = (limit + threads - 1) / threads;

    let started = Instant::now();
    // Scoped threads can borrow `base` without Arc because they are joined
    // before the scope ends.
    let parts: Vec<Vec<usize>> = thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let base = &base;
                s.spawn(move || segment(t * chunk, ((t + 1) * chunk).min(limit), base))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed();
    let primes: Vec<usize> = parts.into_iter().flatten().collect();

    println!("{} threads found {} primes below {} in {:?}", threads, primes.len(), limit, elapsed);
    println!("first ten: {:?}", &primes[..10]);
    println!("last three: {:?}", &primes[primes.len() - 3..]);
    let twins = primes.windows(2).filter(|w| w[1] - w[0] == 2).count();
    let max_gap = primes.windows(2).map(|w| (w[1] - w[0], w[0])).max().unwrap();
    println!("twin prime pairs: {}, largest gap: {} after {}", twins, max_gap.0, max_gap.1);
    assert_eq!(primes.len(), 148_933);
    assert_eq!(segment(0, 100, &small_primes(10)), small_primes(99));
    println!("checks passed");
}
