import queue
import random
import threading
import time

SENTINEL = object()


def producer(q, name, n, rng):
    for i in range(n):
        item = (name, i, rng.randint(1, 100))
        q.put(item)
        time.sleep(rng.random() * 0.005)
    print(f"{name} done producing")


def consumer(q, results, lock, name):
    handled = 0
    while True:
        item = q.get()
        try:
            if item is SENTINEL:
                break
            _, _, value = item
            with lock:
                results.append(value * value)
            handled += 1
        finally:
            q.task_done()
    print(f"{name} handled {handled} items")


def main():
    q = queue.Queue(maxsize=10)
    results, lock = [], threading.Lock()
    rng = random.Random(7)
    producers = [threading.Thread(target=producer, args=(q, f"P{i}", 25, random.Random(i)))
                 for i in range(3)]
    consumers = [threading.Thread(target=consumer, args=(q, results, lock, f"C{i}"), daemon=True)
                 for i in range(4)]
    start = time.perf_counter()
    for t in producers + consumers:
        t.start()
    for t in producers:
        t.join()
    for _ in consumers:
        q.put(SENTINEL)
    q.join()
    for t in consumers:
        t.join(timeout=2)
    elapsed = time.perf_counter() - start
    assert len(results) == 75, len(results)
    assert not any(t.is_alive() for t in consumers)
    print(f"processed {len(results)} items in {elapsed * 1000:.0f} ms, sum of squares={sum(results)}")
    print("sample:", rng.sample(sorted(results), 5))


if __name__ == "__main__":
    main()
