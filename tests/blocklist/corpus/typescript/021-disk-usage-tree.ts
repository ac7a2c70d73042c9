// A `du`-like report: build a tree in /work, scan it with fs/promises into typed nodes, print sizes.
import { mkdir, writeFile, readdir, stat, rm } from 'node:fs/promises';
import path from 'node:path';

interface FileNode { kind: 'file'; name: string; size: number }
interface DirNode { kind: 'dir'; name: string; children: TreeNode[]; size: number }
type TreeNode = FileNode | DirNode;

const root = path.join(process.cwd(), 'du-demo');

async function seed(): Promise<void> {
  const files: Record<string, number> = {
    'logs/app.log': 12_000, 'logs/app.log.1': 48_000, 'logs/old/app.log.2.gz': 9_000,
    'src/main.ts': 3_200, 'src/lib/util.ts': 1_100, 'src/lib/parse.ts': 2_400,
    'node_modules/left-pad/index.js': 400, 'node_modules/left-pad/package.json': 600,
    'README.md': 900,
  };
  await rm(root, { recursive: true, force: true });
  for (const [rel, size] of Object.entries(files)) {
    const p = path.join(root, rel);
    await mkdir(path.dirname(p), { recursive: true });
    await writeFile(p, Buffer.alloc(size, 0x61));
  }
}

async function scan(dir: string): Promise<DirNode> {
  const entries = await readdir(dir, { withFileTypes: true });
  const children = await Promise.all(
    entries.map(async (e): Promise<TreeNode> => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? scan(full) : { kind: 'file', name: e.name, size: (await stat(full)).size };
    }),
  );
  children.sort((a, b) => b.size - a.size || a.name.localeCompare(b.name));
  return { kind: 'dir', name: path.basename(dir), children, size: children.reduce((s, c) => s + c.size, 0) };
}

const human = (n: number): string => {
  const units = ['B', 'K', 'M', 'G'] as const;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i === 0 ? 0 : 1)}${units[i]}`;
};

function print(node: TreeNode, total: number, prefix = '', last = true, isRoot = true): void {
  const pct = ((node.size / total) * 100).toFixed(1).padStart(5);
  const branch = isRoot ? '' : last ? '└── ' : '├── ';
  console.log(`${human(node.size).padStart(6)} ${pct}%  ${prefix}${branch}${node.name}${node.kind === 'dir' ? '/' : ''}`);
  if (node.kind === 'dir') {
    const childPrefix = isRoot ? '' : prefix + (last ? '    ' : '│   ');
    node.children.forEach((c, i) => print(c, total, childPrefix, i === node.children.length - 1, false));
  }
}

function* files(node: TreeNode, at = ''): Generator<[string, number]> {
  if (node.kind === 'file') yield [at + node.name, node.size];
  else for (const c of node.children) yield* files(c, `${at}${node.name}/`);
}

await seed();
const tree = await scan(root);
print(tree, tree.size);
const biggest = [...files(tree)].sort((a, b) => b[1] - a[1]).slice(0, 3);
console.log('\nlargest files:', biggest.map(([p, s]) => `${p} (${human(s)})`).join(', '));
const logs = [...files(tree)].filter(([p]) => /\.log(\.\d+)?(\.gz)?$/.test(p));
console.log(`log files: ${logs.length}, ${human(logs.reduce((s, [, n]) => s + n, 0))} total`);
await rm(root, { recursive: true });
