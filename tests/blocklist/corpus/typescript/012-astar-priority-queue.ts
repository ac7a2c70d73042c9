// A* path finding on a text grid using a generic binary-heap priority queue.
class PriorityQueue<T> {
  private heap: { item: T; priority: number }[] = [];
  get size(): number { return this.heap.length; }
  push(item: T, priority: number): void {
    this.heap.push({ item, priority });
    let i = this.heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.heap[p].priority <= this.heap[i].priority) break;
      [this.heap[p], this.heap[i]] = [this.heap[i], this.heap[p]];
      i = p;
    }
  }
  pop(): T | undefined {
    if (!this.heap.length) return undefined;
    const top = this.heap[0].item;
    const last = this.heap.pop()!;
    if (this.heap.length) {
      this.heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < this.heap.length && this.heap[l].priority < this.heap[m].priority) m = l;
        if (r < this.heap.length && this.heap[r].priority < this.heap[m].priority) m = r;
        if (m === i) break;
        [this.heap[m], this.heap[i]] = [this.heap[i], this.heap[m]];
        i = m;
      }
    }
    return top;
  }
}

type Point = readonly [x: number, y: number];
const key = ([x, y]: Point): string => `${x},${y}`;

const mapText = `
S....#..........
.##..#..#####...
..#.....#...#...
..#######.#.#.##
..........#.#...
.########.#.###.
.#......#.#.....
.#.####.#.#####.
...#....#......G`.trim();

const grid = mapText.split('\n').map((row) => [...row]);
const find = (ch: string): Point => {
  const y = grid.findIndex((row) => row.includes(ch));
  return [grid[y].indexOf(ch), y];
};
const start = find('S'), goal = find('G');
const manhattan = (a: Point, b: Point) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]);

function astar(from: Point, to: Point): { path: Point[]; expanded: number } | null {
  const open = new PriorityQueue<Point>();
  const g = new Map<string, number>([[key(from), 0]]);
  const came = new Map<string, Point>();
  open.push(from, manhattan(from, to));
  let expanded = 0;
  while (open.size) {
    const cur = open.pop()!;
    expanded++;
    if (key(cur) === key(to)) {
      const path: Point[] = [cur];
      while (came.has(key(path[0]))) path.unshift(came.get(key(path[0]))!);
      return { path, expanded };
    }
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      const next: Point = [cur[0] + dx, cur[1] + dy];
      if (grid[next[1]]?.[next[0]] === undefined || grid[next[1]][next[0]] === '#') continue;
      const cost = g.get(key(cur))! + 1;
      if (cost < (g.get(key(next)) ?? Infinity)) {
        g.set(key(next), cost);
        came.set(key(next), cur);
        open.push(next, cost + manhattan(next, to));
      }
    }
  }
  return null;
}

const result = astar(start, goal);
if (!result) {
  console.log('no path');
} else {
  for (const [x, y] of result.path.slice(1, -1)) grid[y][x] = '*';
  console.log(grid.map((r) => r.join('')).join('\n'));
  console.log(`path length ${result.path.length - 1}, expanded ${result.expanded} nodes, lower bound ${manhattan(start, goal)}`);
}
