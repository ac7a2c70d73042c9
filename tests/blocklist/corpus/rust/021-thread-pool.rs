use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

type Job = Box<dyn FnOnce() -> u64 + Send + 'static>;

enum Message {
    Run(usize, Job),
    Shutdown,
}

/// A fixed-size pool of worker threads fed through a shared channel.
struct ThreadPool {
    workers: Vec<JoinHandle<usize>>,
    sender: Sender<Message>,
}

impl ThreadPool {
    fn new(size: usize, results: Sender<(usize, usize, u64)>) -> ThreadPool {
        let (sender, receiver) = mpsc::channel::<Message>();
        let receiver: Arc<Mutex<Receiver<Message>>> = Arc::new(Mutex::new(receiver));
        let workers = (0..size)
            .map(|id| {
                let rx = Arc::clone(&receiver);
                let results = results.clone();
                thread::Builder::new()
                    .name(format!("worker-{}", id))
                    .spawn(move || {
                        let mut done = 0;
                        loop {
                            let msg = rx.lock().expect("poisoned").recv();
                            match msg {
                                Ok(Message::Run(job_id, job)) => {
                                    let value = job();
                                    results.send((job_id, id, value)).unwrap();
                                    done += 1;
                                }
                                Ok(Message::Shutdown) | Err(_) => break,
                            }
                        }
                        done
                    })
                    .unwrap()
            })
            .collect();
        ThreadPool { workers, sender }
    }

    fn execute<F: FnOnce() -> u64 + Send + 'static>(&self, job_id: usize, f: F) {
        self.sender.send(Message::Run(job_id, Box::new(f))).unwrap();
    }

    fn join(self) -> Vec<usize> {
        for _ in &self.workers {
            self.sender.send(Message::Shutdown).unwrap();
        }
        self.workers.into_iter().map(|w| w.join().unwrap()).collect()
    }
}

fn collatz_len(mut n: u64) -> u64 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

fn main() {
    let (tx, rx) = mpsc::channel();
    let pool = ThreadPool::new(4, tx);
    let ranges: Vec<(u64, u64)> = (0..12).map(|i| (i * 10_000 + 1, (i + 1) * 10_000)).collect();
    for (job_id, &(lo, hi)) in ranges.iter().enumerate() {
        pool.execute(job_id, move || {
            if job_id % 5 == 0 {
                thread::sleep(Duration::from_millis(5));
            }
            (lo..=hi).max_by_key(|&n| collatz_len(n)).unwrap()
        });
    }
    let per_worker = pool.join();
    let mut results: Vec<(usize, usize, u64)> = rx.iter().collect();
    results.sort();
    for (job_id, worker, best) in &results {
        println!("job {:>2} (worker {}): longest chain starts at {} ({} steps)", job_id, worker, best, collatz_len(*best));
    }
    println!("jobs per worker: {:?}, total {}", per_worker, per_worker.iter().sum::<usize>());
    let overall = results.iter().map(|r| r.2).max_by_key(|&n| collatz_len(n)).unwrap();
    println!("overall winner below 120000: {}", overall);
}
