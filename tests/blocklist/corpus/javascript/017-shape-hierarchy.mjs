// Shapes with an abstract base class, polymorphic area/perimeter, and sorting by area.
class Shape {
  constructor(name) {
    if (new.target === Shape) throw new TypeError('Shape is abstract');
    this.name = name;
  }
  area() { throw new Error('not implemented'); }
  perimeter() { throw new Error('not implemented'); }
  describe() {
    return `${this.name.padEnd(10)} area=${this.area().toFixed(2).padStart(8)} perimeter=${this.perimeter().toFixed(2).padStart(7)}`;
  }
}

class Circle extends Shape {
  constructor(r) { super('circle'); this.r = r; }
  area() { return Math.PI * this.r ** 2; }
  perimeter() { return 2 * Math.PI * this.r; }
}

class Rect extends Shape {
  constructor(w, h, name = 'rectangle') { super(name); this.w = w; this.h = h; }
  area() { return this.w * this.h; }
  perimeter() { return 2 * (this.w + this.h); }
}

class Square extends Rect {
  constructor(s) { super(s, s, 'square'); }
}

class Triangle extends Shape {
  constructor(a, b, c) {
    super('triangle');
    if (a + b <= c || a + c <= b || b + c <= a) throw new RangeError(`sides ${a}, ${b}, ${c} violate the triangle inequality`);
    Object.assign(this, { a, b, c });
  }
  perimeter() { return this.a + this.b + this.c; }
  area() {
    const s = this.perimeter() / 2; // Heron's formula
    return Math.sqrt(s * (s - this.a) * (s - this.b) * (s - this.c));
  }
}

const specs = [
  () => new Circle(1.5),
  () => new Rect(3, 4.5),
  () => new Square(2.5),
  () => new Triangle(3, 4, 5),
  () => new Triangle(1, 2, 10),
  () => new Shape('blob'),
];

const shapes = [];
for (const make of specs) {
  try { shapes.push(make()); } catch (e) { console.log(`skipped: ${e.constructor.name} - ${e.message}`); }
}
shapes.sort((a, b) => a.area() - b.area()).forEach((s) => console.log(s.describe()));
const total = shapes.reduce((sum, s) => sum + s.area(), 0);
console.log(`total area ${total.toFixed(3)}; squares are rects? ${shapes.filter((s) => s instanceof Rect).map((s) => s.name).join('/')}`);
