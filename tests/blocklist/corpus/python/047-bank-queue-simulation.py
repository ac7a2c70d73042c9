"""Discrete-event simulation of a bank with several tellers and one shared queue."""
import heapq
import random
import statistics
from collections import deque


def simulate(tellers, arrival_rate, service_mean, minutes, seed=0):
    rng = random.Random(seed)
    events = []  # (time, order, kind, payload)
    order = 0

    def schedule(t, kind, payload=None):
        nonlocal order
        heapq.heappush(events, (t, order, kind, payload))
        order += 1

    schedule(rng.expovariate(arrival_rate), "arrive")
    free = tellers
    queue = deque()
    waits, max_queue, served = [], 0, 0

    while events:
        now, _, kind, payload = heapq.heappop(events)
        if kind == "arrive":
            if now < minutes:
                schedule(now + rng.expovariate(arrival_rate), "arrive")
                if free:
                    free -= 1
                    waits.append(0.0)
                    schedule(now + rng.expovariate(1 / service_mean), "depart")
                else:
                    queue.append(now)
                    max_queue = max(max_queue, len(queue))
        elif kind == "depart":
            served += 1
            if queue:
                arrived = queue.popleft()
                waits.append(now - arrived)
                schedule(now + rng.expovariate(1 / service_mean), "depart")
            else:
                free += 1
    return {
        "served": served,
        "mean_wait": statistics.fmean(waits) if waits else 0,
        "p90_wait": statistics.quantiles(waits, n=10)[-1] if len(waits) > 1 else 0,
        "max_queue": max_queue,
    }


def main():
    print("8-hour day, one customer every ~1.2 min, 4 min mean service")
    print(f"{'tellers':>7} {'served':>7} {'mean wait':>10} {'p90 wait':>9} {'max queue':>10}")
    for tellers in range(3, 8):
        r = simulate(tellers, arrival_rate=1 / 1.2, service_mean=4.0, minutes=480, seed=tellers)
        print(f"{tellers:>7} {r['served']:>7} {r['mean_wait']:>9.1f}m {r['p90_wait']:>8.1f}m {r['max_queue']:>10}")
    light = simulate(10, 1 / 1.2, 4.0, 480, seed=1)
    assert light["mean_wait"] < 1.0


if __name__ == "__main__":
    main()
