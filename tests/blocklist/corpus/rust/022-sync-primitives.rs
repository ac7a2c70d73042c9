use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread;

/// Shared bank ledger protected by a Mutex; a read-mostly config behind a
/// RwLock; atomics for cheap counters; a Condvar to signal "all done".
fn main() {
    let ledger = Arc::new(Mutex::new(HashMap::from([("alice", 1_000i64), ("bob", 1_000), ("carol", 1_000)])));
    let config = Arc::new(RwLock::new(("EUR".to_string(), 2i64)));
    let transfers = Arc::new(AtomicUsize::new(0));
    let rejected = Arc::new(AtomicUsize::new(0));
    let done = Arc::new((Mutex::new(0usize), Condvar::new()));
    let stop_flag = Arc::new(AtomicBool::new(false));

    let names = ["alice", "bob", "carol"];
    let mut handles = Vec::new();
    for t in 0..4usize {
        let (ledger, config, transfers, rejected, done) =
            (ledger.clone(), config.clone(), transfers.clone(), rejected.clone(), done.clone());
        handles.push(thread::spawn(move || {
            for i in 0..250usize {
                let from = names[(t + i) % 3];
                let to = names[(t + i + 1) % 3];
                let amount = ((t * 31 + i * 17) % 90) as i64 + 1;
                let fee = config.read().unwrap().1;
                let mut book = ledger.lock().unwrap();
                if book[from] >= amount + fee {
                    *book.get_mut(from).unwrap() -= amount + fee;
                    *book.get_mut(to).unwrap() += amount;
                    transfers.fetch_add(1, Ordering::Relaxed);
                } else {
                    rejected.fetch_add(1, Ordering::Relaxed);
                }
            }
            let (lock, cvar) = &*done;
            *lock.lock().unwrap() += 1;
            cvar.notify_one();
        }));
    }

    // A background thread that occasionally changes the fee until told to stop.
    let admin = {
        let (config, stop_flag) = (config.clone(), stop_flag.clone());
        thread::spawn(move || {
            let mut updates = 0;
            while !stop_flag.load(Ordering::Acquire) {
                let mut cfg = config.write().unwrap();
                cfg.1 = if cfg.1 == 2 { 1 } else { 2 };
                updates += 1;
                drop(cfg);
                thread::yield_now();
            }
            updates
        })
    };

    let (lock, cvar) = &*done;
    let finished = cvar.wait_while(lock.lock().unwrap(), |n| *n < 4).unwrap();
    println!("{} worker threads reported completion", *finished);
    drop(finished);
    stop_flag.store(true, Ordering::Release);
    for h in handles {
        h.join().unwrap();
    }
    let updates = admin.join().unwrap();

    let book = ledger.lock().unwrap();
    let total: i64 = book.values().sum();
    let mut accounts: Vec<_> = book.iter().collect();
    accounts.sort();
    println!("balances: {:?}", accounts);
    println!(
        "transfers={} rejected={} fee updates>0: {} currency={}",
        transfers.load(Ordering::SeqCst),
        rejected.load(Ordering::SeqCst),
        updates > 0,
        config.read().unwrap().0
    );
    println!("money lost to fees: {} (total now {})", 3_000 - total, total);
    assert!(total <= 3_000);
    assert_eq!(transfers.load(Ordering::SeqCst) + rejected.load(Ordering::SeqCst), 1_000);
}
