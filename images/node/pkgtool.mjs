// The node image's package installer helper (docs/packages.md), run by the
// host as the sandbox user in an install container:
//
//   pkgtool.mjs manifest DIR   what `npm install --prefix DIR` put there, as
//                              the JSON the host stores with the set
//
// (npm itself is the installer and reports its registry: `npm config get
// registry`.)
import { readFileSync, readdirSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

function size(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue; // counted as its own packages
    const p = join(dir, e.name);
    if (e.isDirectory()) total += size(p);
    else if (e.isFile()) total += lstatSync(p).size;
  }
  return total;
}

function manifest(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const root = lock.packages?.[''] ?? {};
  const wanted = new Set(Object.keys(root.dependencies ?? {}));
  const npm = JSON.parse(readFileSync('/opt/node/lib/node_modules/npm/package.json', 'utf8'));
  const packages = [];
  for (const [path, info] of Object.entries(lock.packages ?? {})) {
    if (!path.startsWith('node_modules/') || info.link) continue;
    const name = info.name ?? path.slice(path.lastIndexOf('node_modules/') + 13);
    packages.push({
      name,
      version: info.version ?? '',
      requested: path === `node_modules/${name}` && wanted.has(name),
      bytes: size(join(dir, path)),
    });
  }
  process.stdout.write(JSON.stringify({ installer: `npm ${npm.version}`, packages }));
}

const [cmd, dir] = process.argv.slice(2);
if (cmd === 'manifest' && dir) manifest(dir);
else {
  process.stderr.write('usage: pkgtool.mjs manifest DIR\n');
  process.exit(2);
}
