use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

/// Number of allocations made by the object pool. This program is
/// single-threaded, so a plain `static mut` is fine as long as every access
/// goes through the small unsafe helpers below.
static mut CREATED: u32 = 0;
static mut NEXT_ID: u32 = 1000;
static INIT: Once = Once::new();
static mut SETTINGS: Option<(&'static str, u32)> = None;

/// The thread-safe alternative, for comparison.
static REQUESTS: AtomicU64 = AtomicU64::new(0);

fn next_id() -> u32 {
    // SAFETY: only called from the main thread; no references to the statics
    // escape, we read and write them by value.
    unsafe {
        CREATED += 1;
        NEXT_ID += 1;
        NEXT_ID
    }
}

fn created() -> u32 {
    unsafe { CREATED }
}

fn settings() -> (&'static str, u32) {
    INIT.call_once(|| unsafe {
        SETTINGS = Some(("pool", 4));
        println!("(settings initialised once)");
    });
    unsafe { SETTINGS.unwrap() }
}

#[derive(Debug)]
struct Widget { id: u32, label: String }

impl Widget {
    fn new(label: &str) -> Widget {
        REQUESTS.fetch_add(1, Ordering::Relaxed);
        Widget { id: next_id(), label: label.to_string() }
    }
}

/// Sums a slice four lanes at a time; bounds are checked once up front.
fn sum_unrolled(xs: &[u32]) -> u64 {
    let chunks = xs.len() / 4;
    let mut acc = [0u64; 4];
    for c in 0..chunks {
        for lane in 0..4 {
            // SAFETY: c * 4 + lane < chunks * 4 <= xs.len().
            acc[lane] += unsafe { *xs.get_unchecked(c * 4 + lane) } as u64;
        }
    }
    let tail: u64 = xs[chunks * 4..].iter().map(|&x| x as u64).sum();
    acc.iter().sum::<u64>() + tail
}

fn main() {
    let (name, size) = settings();
    println!("pool {:?} with capacity {}", name, size);
    let _ = settings();
    let widgets: Vec<Widget> = ["knob", "lever", "dial", "switch", "slider"].iter().map(|l| Widget::new(l)).collect();
    for w in &widgets {
        println!("  #{} {}", w.id, w.label);
    }
    println!("created {} widgets, {} requests", created(), REQUESTS.load(Ordering::Relaxed));
    let ids: Vec<u32> = widgets.iter().map(|w| w.id).collect();
    let total = sum_unrolled(&ids);
    assert_eq!(total, ids.iter().map(|&x| x as u64).sum::<u64>());
    println!("sum of ids = {}", total);

    let raw = widgets.as_ptr();
    // SAFETY: the vector has 5 elements and outlives these reads.
    let third = unsafe { &*raw.add(2) };
    println!("third widget via raw pointer: {:?}", third);
    let bytes = [0x48u8, 0x69, 0x21];
    // SAFETY: the bytes are valid ASCII, hence valid UTF-8.
    let text = unsafe { std::str::from_utf8_unchecked(&bytes) };
    println!("decoded without checking: {}", text);
}
