import heapq
from collections import defaultdict

ROADS = [
    ("Amsterdam", "Utrecht", 45), ("Amsterdam", "Haarlem", 20), ("Haarlem", "Leiden", 32),
    ("Leiden", "The Hague", 18), ("The Hague", "Rotterdam", 27), ("Utrecht", "Rotterdam", 60),
    ("Utrecht", "Arnhem", 65), ("Rotterdam", "Breda", 52), ("Breda", "Eindhoven", 60),
    ("Arnhem", "Eindhoven", 80), ("Utrecht", "Den Bosch", 55), ("Den Bosch", "Eindhoven", 35),
]


def build_graph(edges):
    graph = defaultdict(list)
    for a, b, km in edges:
        graph[a].append((b, km))
        graph[b].append((a, km))
    return graph


def dijkstra(graph, source):
    dist = {source: 0}
    prev = {}
    heap = [(0, source)]
    visited = set()
    while heap:
        d, node = heapq.heappop(heap)
        if node in visited:
            continue
        visited.add(node)
        for nxt, w in graph[node]:
            nd = d + w
            if nd < dist.get(nxt, float("inf")):
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, nxt))
    return dist, prev


def path_to(prev, target):
    path = [target]
    while path[-1] in prev:
        path.append(prev[path[-1]])
    return path[::-1]


def main():
    graph = build_graph(ROADS)
    dist, prev = dijkstra(graph, "Amsterdam")
    for city in sorted(dist, key=dist.get):
        route = " -> ".join(path_to(prev, city))
        print(f"{city:<10} {dist[city]:>4} km  via {route}")

    assert dist["Eindhoven"] == 135
    assert path_to(prev, "Rotterdam") == ["Amsterdam", "Haarlem", "Leiden", "The Hague", "Rotterdam"]

    # The graph is undirected, so distances must be symmetric.
    back, _ = dijkstra(graph, "Eindhoven")
    assert back["Amsterdam"] == dist["Eindhoven"]
    print("all route checks passed")


if __name__ == "__main__":
    main()
