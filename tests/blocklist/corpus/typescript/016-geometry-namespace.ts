// Vector geometry organised in a namespace: points, segments, intersection and convex hull.
namespace Geometry {
  export interface Vec {
    readonly x: number;
    readonly y: number;
  }
  export const EPS = 1e-9;
  export const vec = (x: number, y: number): Vec => ({ x, y });
  export const sub = (a: Vec, b: Vec): Vec => vec(a.x - b.x, a.y - b.y);
  export const cross = (a: Vec, b: Vec): number => a.x * b.y - a.y * b.x;
  export const dist = (a: Vec, b: Vec): number => Math.hypot(a.x - b.x, a.y - b.y);
  export const fmt = (p: Vec): string => `(${+p.x.toFixed(3)}, ${+p.y.toFixed(3)})`;

  export namespace Segment {
    export type T = readonly [Vec, Vec];
    export function intersect([p, p2]: T, [q, q2]: T): Vec | null {
      const r = sub(p2, p), s = sub(q2, q);
      const denom = cross(r, s);
      if (Math.abs(denom) < EPS) return null; // parallel or collinear
      const t = cross(sub(q, p), s) / denom;
      const u = cross(sub(q, p), r) / denom;
      return t >= -EPS && t <= 1 + EPS && u >= -EPS && u <= 1 + EPS ? vec(p.x + t * r.x, p.y + t * r.y) : null;
    }
  }

  /** Andrew's monotone chain; returns the hull counter-clockwise. */
  export function convexHull(points: readonly Vec[]): Vec[] {
    const pts = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
    if (pts.length < 3) return pts;
    const half = (list: Vec[]): Vec[] => {
      const h: Vec[] = [];
      for (const p of list) {
        while (h.length >= 2 && cross(sub(h[h.length - 1], h[h.length - 2]), sub(p, h[h.length - 2])) <= 0) h.pop();
        h.push(p);
      }
      h.pop();
      return h;
    };
    return [...half(pts), ...half([...pts].reverse())];
  }

  export function polygonArea(poly: readonly Vec[]): number {
    return Math.abs(poly.reduce((s, p, i) => s + cross(p, poly[(i + 1) % poly.length]), 0)) / 2;
  }
}

import G = Geometry;

const segs: Array<[string, G.Segment.T, G.Segment.T]> = [
  ['crossing', [G.vec(0, 0), G.vec(4, 4)], [G.vec(0, 4), G.vec(4, 0)]],
  ['parallel', [G.vec(0, 0), G.vec(2, 0)], [G.vec(0, 1), G.vec(2, 1)]],
  ['touching', [G.vec(0, 0), G.vec(2, 2)], [G.vec(2, 2), G.vec(3, 0)]],
  ['apart', [G.vec(0, 0), G.vec(1, 1)], [G.vec(3, 0), G.vec(4, 5)]],
];
for (const [name, a, b] of segs) {
  const hit = G.Segment.intersect(a, b);
  console.log(`${name.padEnd(9)} ${hit ? `meet at ${G.fmt(hit)}` : 'no intersection'}`);
}

let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 10;
const cloud = Array.from({ length: 25 }, () => G.vec(+rnd().toFixed(2), +rnd().toFixed(2)));
const hull = G.convexHull(cloud);
console.log(`hull of ${cloud.length} points has ${hull.length} vertices:`);
console.log('  ' + hull.map(G.fmt).join(' '));
const perimeter = hull.reduce((s, p, i) => s + G.dist(p, hull[(i + 1) % hull.length]), 0);
console.log(`area ${G.polygonArea(hull).toFixed(3)}, perimeter ${perimeter.toFixed(3)}`);
