// Discriminated unions, user-defined type guards and `in`/instanceof narrowing for geometry.
type Circle = { kind: 'circle'; radius: number };
type Rectangle = { kind: 'rect'; width: number; height: number };
type Polygon = { kind: 'polygon'; points: ReadonlyArray<readonly [number, number]> };
type Shape = Circle | Rectangle | Polygon;

interface Labeled {
  label: string;
}

const isLabeled = (x: unknown): x is Labeled =>
  typeof x === 'object' && x !== null && 'label' in x && typeof (x as { label: unknown }).label === 'string';

function isShape(x: unknown): x is Shape {
  if (typeof x !== 'object' || x === null || !('kind' in x)) return false;
  switch ((x as { kind: unknown }).kind) {
    case 'circle': return typeof (x as Circle).radius === 'number';
    case 'rect': return typeof (x as Rectangle).width === 'number' && typeof (x as Rectangle).height === 'number';
    case 'polygon': return Array.isArray((x as Polygon).points);
    default: return false;
  }
}

function area(s: Shape): number {
  switch (s.kind) {
    case 'circle': return Math.PI * s.radius ** 2;
    case 'rect': return s.width * s.height;
    case 'polygon': {
      // Shoelace formula
      let sum = 0;
      s.points.forEach(([x1, y1], i) => {
        const [x2, y2] = s.points[(i + 1) % s.points.length];
        sum += x1 * y2 - x2 * y1;
      });
      return Math.abs(sum) / 2;
    }
  }
}

const payload = `[
  {"kind":"circle","radius":2,"label":"coin"},
  {"kind":"rect","width":3,"height":4},
  {"kind":"polygon","points":[[0,0],[4,0],[4,3]],"label":"ramp"},
  {"kind":"hexagon","side":1},
  {"kind":"rect","width":"wide","height":2},
  "just a string",
  null
]`;

const parsed: unknown = JSON.parse(payload);
if (!Array.isArray(parsed)) throw new Error('expected an array');

let total = 0;
for (const [i, item] of parsed.entries()) {
  if (!isShape(item)) {
    console.log(`#${i}: rejected ${JSON.stringify(item)}`);
    continue;
  }
  const a = area(item);
  total += a;
  const name = isLabeled(item) ? `"${item.label}"` : '(unlabeled)';
  console.log(`#${i}: ${item.kind.padEnd(7)} ${name.padEnd(12)} area ${a.toFixed(3)}`);
}
console.log(`total area ${total.toFixed(3)}`);

function describeValue(v: string | number | Date | string[]): string {
  if (typeof v === 'string') return `string of length ${v.length}`;
  if (typeof v === 'number') return `number ${v.toFixed(1)}`;
  if (v instanceof Date) return `date ${v.toISOString().slice(0, 10)}`;
  return `array [${v.join('|')}]`;
}
[`text`, 3.14159, new Date(Date.UTC(2024, 0, 2)), ['a', 'b']].forEach((v) => console.log(describeValue(v)));
