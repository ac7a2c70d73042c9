import random


class DisjointSet:
    def __init__(self, items):
        self.parent = {x: x for x in items}
        self.rank = {x: 0 for x in items}
        self.components = len(self.parent)

    def find(self, x):
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:  # path compression
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1
        self.components -= 1
        return True


def kruskal(nodes, edges):
    ds = DisjointSet(nodes)
    tree = []
    for w, a, b in sorted(edges):
        if ds.union(a, b):
            tree.append((a, b, w))
    return tree, ds.components


def prim_cost(nodes, edges):
    import heapq
    adj = {n: [] for n in nodes}
    for w, a, b in edges:
        adj[a].append((w, b))
        adj[b].append((w, a))
    start = next(iter(nodes))
    seen, heap, cost = {start}, list(adj[start]), 0
    heapq.heapify(heap)
    while heap and len(seen) < len(nodes):
        w, n = heapq.heappop(heap)
        if n not in seen:
            seen.add(n)
            cost += w
            for e in adj[n]:
                heapq.heappush(heap, e)
    return cost


def main():
    rng = random.Random(2024)
    nodes = [f"site{i}" for i in range(8)]
    coords = {n: (rng.uniform(0, 100), rng.uniform(0, 100)) for n in nodes}
    edges = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            (x1, y1), (x2, y2) = coords[a], coords[b]
            edges.append((round(((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5, 1), a, b))

    tree, comps = kruskal(nodes, edges)
    print("cable plan (minimum spanning tree):")
    for a, b, w in tree:
        print(f"  {a} -- {b}: {w:6.1f} m")
    total = round(sum(w for *_, w in tree), 1)
    print(f"total length {total} m, {len(tree)} cables, components={comps}")
    assert len(tree) == len(nodes) - 1 and comps == 1
    assert abs(prim_cost(nodes, edges) - total) < 1e-6
    print("Prim's algorithm agrees")


if __name__ == "__main__":
    main()
