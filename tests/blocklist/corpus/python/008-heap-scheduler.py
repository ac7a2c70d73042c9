import heapq
import itertools
from dataclasses import dataclass, field


@dataclass(order=True)
class Task:
    priority: int
    seq: int
    name: str = field(compare=False)
    duration: int = field(compare=False)


class Scheduler:
    """A tiny priority scheduler: lower number = more urgent, FIFO among equals."""

    def __init__(self):
        self._heap = []
        self._counter = itertools.count()
        self._cancelled = set()

    def submit(self, name, priority, duration):
        task = Task(priority, next(self._counter), name, duration)
        heapq.heappush(self._heap, task)
        return task.seq

    def cancel(self, seq):
        self._cancelled.add(seq)

    def run(self):
        clock = 0
        timeline = []
        while self._heap:
            task = heapq.heappop(self._heap)
            if task.seq in self._cancelled:
                print(f"  skip {task.name} (cancelled)")
                continue
            start = clock
            clock += task.duration
            timeline.append((task.name, start, clock))
            print(f"  t={start:>3}..{clock:<3} p{task.priority} {task.name}")
        return timeline


def main():
    s = Scheduler()
    s.submit("rotate-logs", 5, 3)
    s.submit("send-invoices", 2, 8)
    backup = s.submit("nightly-backup", 1, 15)
    s.submit("reindex-search", 3, 10)
    s.submit("email-digest", 2, 4)
    s.submit("cleanup-tmp", 5, 1)
    s.cancel(backup)

    print("running tasks:")
    timeline = s.run()

    names = [t[0] for t in timeline]
    assert names[:2] == ["send-invoices", "email-digest"], names
    assert "nightly-backup" not in names
    total = timeline[-1][2]
    waits = [start for _, start, _ in timeline]
    print(f"makespan={total}, mean wait={sum(waits) / len(waits):.1f}")

    print("\nthree largest durations via nlargest:",
          heapq.nlargest(3, [(d, n) for n, s0, e in timeline for d in [e - s0]]))


if __name__ == "__main__":
    main()
