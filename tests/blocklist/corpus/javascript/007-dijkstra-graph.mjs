// Shortest paths on a weighted road network with Dijkstra and a simple binary heap.
class MinHeap {
  #items = [];
  get size() { return this.#items.length; }
  push(item) {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p][0] <= a[i][0]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop() {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && a[l][0] < a[m][0]) m = l;
        if (r < a.length && a[r][0] < a[m][0]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

const roads = [
  ['Amsterdam', 'Utrecht', 45], ['Amsterdam', 'Haarlem', 20], ['Haarlem', 'Leiden', 32],
  ['Leiden', 'The Hague', 18], ['Utrecht', 'Rotterdam', 60], ['The Hague', 'Rotterdam', 26],
  ['Utrecht', 'Arnhem', 64], ['Rotterdam', 'Breda', 50], ['Arnhem', 'Nijmegen', 20],
  ['Breda', 'Eindhoven', 58], ['Nijmegen', 'Eindhoven', 70],
];

const graph = new Map();
for (const [a, b, km] of roads) {
  if (!graph.has(a)) graph.set(a, []);
  if (!graph.has(b)) graph.set(b, []);
  graph.get(a).push([b, km]);
  graph.get(b).push([a, km]);
}

function dijkstra(start) {
  const dist = new Map([[start, 0]]);
  const prev = new Map();
  const heap = new MinHeap();
  heap.push([0, start]);
  while (heap.size) {
    const [d, node] = heap.pop();
    if (d > (dist.get(node) ?? Infinity)) continue;
    for (const [next, w] of graph.get(node)) {
      const nd = d + w;
      if (nd < (dist.get(next) ?? Infinity)) {
        dist.set(next, nd);
        prev.set(next, node);
        heap.push([nd, next]);
      }
    }
  }
  return { dist, prev };
}

function pathTo(prev, target) {
  const path = [target];
  while (prev.has(path[0])) path.unshift(prev.get(path[0]));
  return path;
}

const { dist, prev } = dijkstra('Amsterdam');
for (const city of [...graph.keys()].sort()) {
  const d = dist.get(city);
  console.log(`${city.padEnd(10)} ${String(d).padStart(4)} km  via ${pathTo(prev, city).join(' -> ')}`);
}
