import math
import time
from multiprocessing import Pool, cpu_count


def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    for d in range(3, math.isqrt(n) + 1, 2):
        if n % d == 0:
            return False
    return True


def count_primes(bounds):
    lo, hi = bounds
    return lo, sum(1 for n in range(lo, hi) if is_prime(n))


def sieve(limit):
    flags = bytearray([1]) * (limit + 1)
    flags[0:2] = b"\x00\x00"
    for i in range(2, math.isqrt(limit) + 1):
        if flags[i]:
            flags[i * i::i] = bytearray(len(flags[i * i::i]))
    return flags


def main():
    limit, chunk = 200_000, 25_000
    ranges = [(lo, min(lo + chunk, limit)) for lo in range(0, limit, chunk)]
    workers = min(2, cpu_count() or 1)

    t0 = time.perf_counter()
    with Pool(processes=workers) as pool:
        parts = pool.map(count_primes, ranges)
    parallel = sum(c for _, c in parts)
    t_par = time.perf_counter() - t0

    t0 = time.perf_counter()
    expected = sum(sieve(limit - 1))
    t_sieve = time.perf_counter() - t0

    for lo, c in parts:
        print(f"  [{lo:>7}, {lo + chunk:>7}) {c:>5} primes")
    print(f"pool({workers}) trial division: {parallel} primes in {t_par:.2f}s")
    print(f"single-process sieve:          {expected} primes in {t_sieve:.3f}s")
    assert parallel == expected == 17984

    with Pool(2) as pool:
        squares = list(pool.imap_unordered(math.isqrt, [4, 9, 16, 25], chunksize=2))
    print("imap_unordered results:", sorted(squares))


if __name__ == "__main__":
    main()
