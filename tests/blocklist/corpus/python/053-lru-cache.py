import time
from collections import OrderedDict
from functools import lru_cache


class LRUCache:
    """Least-recently-used cache with hit/miss statistics and optional TTL."""

    def __init__(self, capacity, ttl=None, clock=time.monotonic):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity, self.ttl, self.clock = capacity, ttl, clock
        self._data = OrderedDict()
        self.hits = self.misses = self.evictions = 0

    def get(self, key, default=None):
        item = self._data.get(key)
        if item is None or (self.ttl is not None and self.clock() - item[1] > self.ttl):
            self._data.pop(key, None)
            self.misses += 1
            return default
        self._data.move_to_end(key)
        self.hits += 1
        return item[0]

    def put(self, key, value):
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = (value, self.clock())
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)
            self.evictions += 1

    def __len__(self):
        return len(self._data)

    def keys(self):
        return list(self._data)

    def stats(self):
        total = self.hits + self.misses
        return f"hits={self.hits} misses={self.misses} evictions={self.evictions} hit-rate={self.hits / total:.0%}"


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@lru_cache(maxsize=128)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main():
    cache = LRUCache(3)
    for key in "ABCA":
        cache.put(key, key.lower())
    cache.get("B")
    cache.put("D", "d")
    print("after puts:", cache.keys())
    assert cache.keys() == ["A", "B", "D"]
    assert cache.get("C") is None

    clock = FakeClock()
    ttl_cache = LRUCache(10, ttl=5, clock=clock)
    ttl_cache.put("session", "abc123")
    clock.now = 4
    print("at t=4:", ttl_cache.get("session"))
    clock.now = 6
    print("at t=6:", ttl_cache.get("session"), "| size", len(ttl_cache))

    workload = [i % 7 for i in range(50)] + list(range(20))
    for size in (3, 7, 10):
        c = LRUCache(size)
        for k in workload:
            if c.get(k) is None:
                c.put(k, k * k)
        print(f"capacity {size:>2}: {c.stats()}")

    print("fib(90) =", fib(90), fib.cache_info())


if __name__ == "__main__":
    main()
