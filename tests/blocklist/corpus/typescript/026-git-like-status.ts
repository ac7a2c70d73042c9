// Use child_process to inspect a scratch directory with ls, find, grep and wc, typed end to end.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

interface CmdResult { cmd: string; code: number | null; stdout: string; stderr: string }

function run(cmd: string, args: readonly string[], cwd: string): CmdResult {
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 2000 });
  if (r.error) throw r.error;
  return { cmd: [cmd, ...args].join(' '), code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync('/tmp/status-demo-');
const files: Record<string, string> = {
  'src/app.ts': "// TODO: handle errors\nexport const main = () => console.log('hi');\n",
  'src/util.ts': '// FIXME: slow\n// TODO: cache results\nexport const id = <T>(x: T) => x;\n',
  'docs/notes.md': '# Notes\nRun `npm test` before pushing.\n',
  'build.sh': '#!/bin/sh\nset -e\ntsc -p .\n',
};
for (const [rel, content] of Object.entries(files)) {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

try {
  const ls = run('ls', ['-1', '-p'], dir);
  console.log(`$ ${ls.cmd}\n${ls.stdout.trimEnd()}`);

  const find = run('find', ['.', '-type', 'f', '-name', '*.ts'], dir);
  const tsFiles = find.stdout.split('\n').filter(Boolean).sort();
  console.log(`$ ${find.cmd}\n${tsFiles.join('\n')}`);

  const grep = run('grep', ['-rnE', 'TODO|FIXME', 'src'], dir);
  const markers = grep.stdout.trim().split('\n').map((line) => {
    const m = /^(?<file>[^:]+):(?<line>\d+):\s*\/\/\s*(?<kind>TODO|FIXME):\s*(?<text>.*)$/.exec(line);
    return m?.groups as { file: string; line: string; kind: string; text: string } | undefined;
  }).filter((g) => g !== undefined);
  console.log(`found ${markers.length} markers:`);
  for (const m of markers.sort((a, b) => a.file.localeCompare(b.file) || +a.line - +b.line)) console.log(`  ${m.kind.padEnd(5)} ${m.file}:${m.line} ${m.text}`);

  const noMatch = run('grep', ['-r', 'XXX', '.'], dir);
  console.log(`grep for XXX exited with ${noMatch.code} (1 means "no match", not an error)`);

  const wc = execFileSync('wc', ['-l', ...tsFiles], { cwd: dir, encoding: 'utf8' });
  const total = /(\d+)\s+total/.exec(wc)?.[1];
  console.log(`TypeScript lines: ${total}`);

  try {
    run('definitely-not-a-command', [], dir);
  } catch (e) {
    console.log(`spawning a missing binary fails with ${(e as NodeJS.ErrnoException).code}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
