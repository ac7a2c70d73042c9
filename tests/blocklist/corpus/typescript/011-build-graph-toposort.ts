// Build-task dependency graph: cycle detection, topological order and parallel "waves".
interface Task {
  readonly name: string;
  readonly deps: readonly string[];
  readonly seconds: number;
}

class Graph<N extends string = string> {
  private readonly edges = new Map<N, Set<N>>();

  addNode(n: N): void {
    if (!this.edges.has(n)) this.edges.set(n, new Set());
  }
  addEdge(from: N, to: N): void {
    this.addNode(from);
    this.addNode(to);
    this.edges.get(from)!.add(to);
  }
  get nodes(): N[] {
    return [...this.edges.keys()];
  }
  successors(n: N): ReadonlySet<N> {
    return this.edges.get(n) ?? new Set();
  }

  findCycle(): N[] | null {
    const color = new Map<N, 'grey' | 'black'>();
    const stack: N[] = [];
    const visit = (n: N): N[] | null => {
      color.set(n, 'grey');
      stack.push(n);
      for (const m of this.successors(n)) {
        if (color.get(m) === 'grey') return [...stack.slice(stack.indexOf(m)), m];
        if (!color.has(m)) {
          const c = visit(m);
          if (c) return c;
        }
      }
      stack.pop();
      color.set(n, 'black');
      return null;
    };
    for (const n of this.nodes) if (!color.has(n)) { const c = visit(n); if (c) return c; }
    return null;
  }

  waves(): N[][] {
    const indegree = new Map<N, number>(this.nodes.map((n) => [n, 0]));
    for (const n of this.nodes) for (const m of this.successors(n)) indegree.set(m, indegree.get(m)! + 1);
    let ready = this.nodes.filter((n) => indegree.get(n) === 0).sort();
    const out: N[][] = [];
    while (ready.length) {
      out.push(ready);
      const next: N[] = [];
      for (const n of ready) for (const m of this.successors(n)) {
        indegree.set(m, indegree.get(m)! - 1);
        if (indegree.get(m) === 0) next.push(m);
      }
      ready = next.sort();
    }
    return out;
  }
}

function plan(tasks: readonly Task[]): void {
  const g = new Graph();
  for (const t of tasks) {
    g.addNode(t.name);
    for (const d of t.deps) g.addEdge(d, t.name); // dependency runs first
  }
  const cycle = g.findCycle();
  if (cycle) {
    console.log(`  cycle detected: ${cycle.join(' -> ')}`);
    return;
  }
  const cost = new Map(tasks.map((t) => [t.name, t.seconds] as const));
  let total = 0;
  g.waves().forEach((wave, i) => {
    const longest = Math.max(...wave.map((n) => cost.get(n) ?? 0));
    total += longest;
    console.log(`  wave ${i + 1}: ${wave.join(', ')} (${longest}s)`);
  });
  const serial = tasks.reduce((s, t) => s + t.seconds, 0);
  console.log(`  parallel ≈ ${total}s vs serial ${serial}s (speed-up ×${(serial / total).toFixed(2)})`);
}

const project: Task[] = [
  { name: 'fetch-deps', deps: [], seconds: 20 },
  { name: 'codegen', deps: ['fetch-deps'], seconds: 5 },
  { name: 'compile-core', deps: ['codegen'], seconds: 40 },
  { name: 'compile-cli', deps: ['compile-core'], seconds: 15 },
  { name: 'compile-web', deps: ['compile-core', 'fetch-deps'], seconds: 30 },
  { name: 'lint', deps: ['fetch-deps'], seconds: 10 },
  { name: 'unit-tests', deps: ['compile-core'], seconds: 25 },
  { name: 'package', deps: ['compile-cli', 'compile-web', 'unit-tests', 'lint'], seconds: 8 },
];
console.log('project:');
plan(project);

console.log('broken project:');
plan([...project.filter((t) => t.name !== 'codegen'), { name: 'codegen', deps: ['package'], seconds: 5 }]);
