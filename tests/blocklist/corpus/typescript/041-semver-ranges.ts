// Semantic versions: parse, compare (including pre-releases), sort, and check ^ ~ >= ranges.
interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly (string | number)[];
  readonly raw: string;
}

const SEMVER_RE = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(raw: string): SemVer {
  const m = SEMVER_RE.exec(raw.trim());
  if (!m) throw new TypeError(`invalid version: ${JSON.stringify(raw)}`);
  const prerelease = m[4]?.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) ?? [];
  return { major: +m[1], minor: +m[2], patch: +m[3], prerelease, raw };
}

function compare(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] - b[k];
  if (!a.prerelease.length || !b.prerelease.length) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i], y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

type Comparator = (v: SemVer) => boolean;

function range(spec: string): Comparator {
  const parts = spec.trim().split(/\s+/).map((tok): Comparator => {
    const m = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(tok)!;
    const op = m[1] ?? '=';
    const base = parse(m[2]);
    const ge = (v: SemVer) => compare(v, base) >= 0;
    switch (op) {
      case '^': {
        const upper = base.major > 0 ? `${base.major + 1}.0.0` : base.minor > 0 ? `0.${base.minor + 1}.0` : `0.0.${base.patch + 1}`;
        return (v) => ge(v) && compare(v, parse(upper)) < 0 && (v.prerelease.length === 0 || base.prerelease.length > 0);
      }
      case '~': return (v) => ge(v) && compare(v, parse(`${base.major}.${base.minor + 1}.0`)) < 0 && !v.prerelease.length;
      case '>=': return ge;
      case '>': return (v) => compare(v, base) > 0;
      case '<=': return (v) => compare(v, base) <= 0;
      case '<': return (v) => compare(v, base) < 0;
      default: return (v) => compare(v, base) === 0;
    }
  });
  return (v) => parts.every((p) => p(v));
}

const published = ['1.0.0', '1.2.3', '1.10.0', '1.2.10', '2.0.0-alpha.1', '2.0.0-alpha.10', '2.0.0-beta', '2.0.0', '0.9.7', '1.2.4-rc.1', 'v2.1.0+build.5', 'banana'];
const versions = published.flatMap((s) => {
  try { return [parse(s)]; } catch (e) { console.log(`skipping: ${(e as Error).message}`); return []; }
});
const sorted = [...versions].sort(compare);
console.log('sorted:', sorted.map((v) => v.raw).join(' < '));

for (const spec of ['^1.2.0', '~1.2.0', '>=1.2.4 <2.0.0', '^2.0.0-alpha.5', '^0.9.0', '2.0.0']) {
  const ok = range(spec);
  const matching = sorted.filter(ok);
  console.log(`${spec.padEnd(16)} -> ${matching.map((v) => v.raw).join(', ') || '(none)'}; best: ${matching.at(-1)?.raw ?? '-'}`);
}
