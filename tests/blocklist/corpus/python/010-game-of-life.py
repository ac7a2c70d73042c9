from collections import Counter

GLIDER = {(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)}
BLINKER = {(10, 5), (11, 5), (12, 5)}


def step(cells):
    neighbours = Counter(
        (x + dx, y + dy)
        for x, y in cells
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if dx or dy
    )
    return {c for c, n in neighbours.items() if n == 3 or (n == 2 and c in cells)}


def render(cells, width=16, height=10):
    rows = []
    for y in range(height):
        rows.append("".join("█" if (x, y) in cells else "·" for x in range(width)))
    return "\n".join(rows)


def bounding_box(cells):
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return min(xs), min(ys), max(xs), max(ys)


def normalise(cells):
    x0, y0, _, _ = bounding_box(cells)
    return frozenset((x - x0, y - y0) for x, y in cells)


def main():
    world = GLIDER | BLINKER
    for gen in range(5):
        print(f"generation {gen}: {len(world)} live cells")
        print(render(world))
        print()
        world = step(world)

    # A glider returns to its own shape every 4 generations, shifted by (1, 1).
    g = set(GLIDER)
    for _ in range(4):
        g = step(g)
    assert normalise(g) == normalise(GLIDER)
    assert bounding_box(g)[:2] == (1, 1)

    # A blinker has period 2.
    assert step(step(BLINKER)) == BLINKER
    print("glider and blinker behave as expected")


if __name__ == "__main__":
    main()
