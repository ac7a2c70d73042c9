use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Barrier};
use std::thread;

/// Three-stage pipeline connected by bounded channels:
///   reader -> parser (x2) -> aggregator
/// Closing a sender ends the next stage's loop, so shutdown is automatic.
#[derive(Debug)]
struct Record { user: String, bytes: u64 }

fn reader(lines: Vec<&'static str>, tx: SyncSender<(usize, &'static str)>) {
    for (i, l) in lines.into_iter().enumerate() {
        tx.send((i + 1, l)).expect("parser alive");
    }
}

fn parser(id: usize, rx: Arc<std::sync::Mutex<Receiver<(usize, &'static str)>>>, tx: SyncSender<Result<Record, String>>, start: Arc<Barrier>) -> usize {
    start.wait(); // all parsers begin together
    let mut handled = 0;
    loop {
        let next = rx.lock().unwrap().recv();
        let Ok((n, line)) = next else { break };
        handled += 1;
        let parsed = match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            [user, "GET" | "PUT", _path, bytes] => bytes
                .parse()
                .map(|b| Record { user: user.to_string(), bytes: b })
                .map_err(|e| format!("parser {}: line {}: {}", id, n, e)),
            _ => Err(format!("parser {}: line {}: malformed {:?}", id, n, line)),
        };
        tx.send(parsed).unwrap();
    }
    handled
}

fn main() {
    let lines = vec![
        "alice GET /index.html 1200",
        "bob PUT /upload/photo.jpg 480000",
        "alice GET /style.css 5300",
        "carol GET /api/items?page=2 780",
        "garbage line",
        "bob GET /index.html 1200",
        "dave GET /big.iso lots",
        "carol PUT /api/items 310",
        "alice GET /favicon.ico 900",
    ];
    let (line_tx, line_rx) = mpsc::sync_channel(2);
    let (rec_tx, rec_rx) = mpsc::sync_channel(2);
    let shared_rx = Arc::new(std::sync::Mutex::new(line_rx));
    let barrier = Arc::new(Barrier::new(2));

    let reader_handle = thread::spawn(move || reader(lines, line_tx));
    let parsers: Vec<_> = (1..=2)
        .map(|id| {
            let (rx, tx, b) = (shared_rx.clone(), rec_tx.clone(), barrier.clone());
            thread::spawn(move || parser(id, rx, tx, b))
        })
        .collect();
    drop(rec_tx); // only the parsers hold senders now

    let aggregator = thread::spawn(move || {
        let mut totals = std::collections::BTreeMap::new();
        let mut errors = Vec::new();
        for item in rec_rx {
            match item {
                Ok(r) => *totals.entry(r.user).or_insert(0u64) += r.bytes,
                Err(e) => errors.push(e),
            }
        }
        (totals, errors)
    });

    reader_handle.join().unwrap();
    let handled: Vec<usize> = parsers.into_iter().map(|p| p.join().unwrap()).collect();
    let (totals, mut errors) = aggregator.join().unwrap();
    errors.sort_by_key(|e| e.split("line ").nth(1).and_then(|s| s.split(':').next()?.parse::<u32>().ok()));

    println!("lines handled per parser: {:?} (sum {})", handled, handled.iter().sum::<usize>());
    for (user, bytes) in &totals {
        println!("{:<6} {:>9} bytes", user, bytes);
    }
    println!("{} errors:", errors.len());
    for e in &errors {
        // strip the parser id, which depends on scheduling
        println!("  {}", e.splitn(2, ": ").nth(1).unwrap_or(e));
    }
}
