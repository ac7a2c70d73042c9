import math
import random
import statistics


def estimate_pi(n, rng):
    inside = sum(1 for _ in range(n) if rng.random() ** 2 + rng.random() ** 2 <= 1)
    return 4 * inside / n


def random_walk(steps, rng):
    x = y = 0
    for _ in range(steps):
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        x, y = x + dx, y + dy
    return math.hypot(x, y)


def birthday_collision(people, trials, rng):
    hits = 0
    for _ in range(trials):
        days = [rng.randrange(365) for _ in range(people)]
        hits += len(set(days)) < people
    return hits / trials


def gamblers_ruin(start, goal, p, rng, trials=2000):
    wins = 0
    for _ in range(trials):
        money = start
        while 0 < money < goal:
            money += 1 if rng.random() < p else -1
        wins += money == goal
    return wins / trials


def main():
    rng = random.Random(12345)
    estimates = [estimate_pi(20_000, rng) for _ in range(5)]
    print(f"pi ≈ {statistics.mean(estimates):.4f} ± {statistics.stdev(estimates):.4f} (true {math.pi:.4f})")

    for steps in (100, 400, 1600):
        dists = [random_walk(steps, rng) for _ in range(200)]
        rms = math.sqrt(statistics.fmean(d * d for d in dists))
        print(f"random walk {steps:>5} steps: RMS distance {rms:6.1f} (theory sqrt(n) = {math.sqrt(steps):.1f})")

    for people in (10, 23, 40):
        sim = birthday_collision(people, 2000, rng)
        exact = 1 - math.prod((365 - k) / 365 for k in range(people))
        print(f"birthday problem n={people:>2}: simulated {sim:.3f}, exact {exact:.3f}")

    p = 0.49
    sim = gamblers_ruin(10, 20, p, rng)
    r = (1 - p) / p
    exact = (1 - r ** 10) / (1 - r ** 20)
    print(f"gambler's ruin 10->20 at p={p}: simulated {sim:.3f}, exact {exact:.3f}")


if __name__ == "__main__":
    main()
