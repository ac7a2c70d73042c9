from collections import deque
from graphlib import CycleError, TopologicalSorter

MAKEFILE = """
app: main.o util.o net.o
main.o: main.c config.h
util.o: util.c util.h config.h
net.o: net.c net.h util.h
config.h: config.h.in
docs: app README.md
"""


def parse_rules(text):
    deps = {}
    for line in text.strip().splitlines():
        target, _, prereqs = line.partition(":")
        deps[target.strip()] = prereqs.split()
    return deps


def kahn(deps):
    nodes = set(deps) | {p for ps in deps.values() for p in ps}
    indegree = {n: 0 for n in nodes}
    users = {n: [] for n in nodes}
    for target, prereqs in deps.items():
        for p in prereqs:
            indegree[target] += 1
            users[p].append(target)
    ready = deque(sorted(n for n, d in indegree.items() if d == 0))
    order = []
    while ready:
        n = ready.popleft()
        order.append(n)
        for u in sorted(users[n]):
            indegree[u] -= 1
            if indegree[u] == 0:
                ready.append(u)
    if len(order) != len(nodes):
        raise ValueError("cycle detected among: " + ", ".join(sorted(n for n in nodes if indegree[n])))
    return order


def parallel_levels(deps):
    ts = TopologicalSorter(deps)
    ts.prepare()
    levels = []
    while ts.is_active():
        batch = sorted(ts.get_ready())
        levels.append(batch)
        ts.done(*batch)
    return levels


def main():
    deps = parse_rules(MAKEFILE)
    order = kahn(deps)
    print("build order:", " -> ".join(order))
    pos = {n: i for i, n in enumerate(order)}
    assert all(pos[p] < pos[t] for t, ps in deps.items() for p in ps)

    print("\nparallel build levels:")
    for i, level in enumerate(parallel_levels(deps)):
        print(f"  step {i}: {', '.join(level)}")

    cyclic = dict(deps, **{"util.h": ["net.o"]})
    try:
        kahn(cyclic)
    except ValueError as exc:
        print("\n" + str(exc))
    try:
        list(TopologicalSorter(cyclic).static_order())
    except CycleError as exc:
        print("graphlib found cycle:", " -> ".join(exc.args[1]))


if __name__ == "__main__":
    main()
