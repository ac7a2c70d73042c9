// Warehouse inventory with access modifiers, readonly fields, abstract classes and getters.
abstract class Product {
  private static counter = 0;
  readonly id: string;
  protected constructor(public readonly name: string, protected basePrice: number) {
    this.id = `${this.prefix()}-${String(++Product.counter).padStart(4, '0')}`;
  }
  protected abstract prefix(): string;
  abstract get price(): number;
  toString(): string {
    return `${this.id} ${this.name.padEnd(18)} ${this.price.toFixed(2).padStart(8)}`;
  }
}

class Food extends Product {
  constructor(name: string, price: number, private readonly expires: Date) {
    super(name, price);
  }
  protected prefix() { return 'FOOD'; }
  get price(): number {
    const daysLeft = (this.expires.getTime() - Date.UTC(2024, 6, 1)) / 86_400_000;
    return daysLeft < 3 ? this.basePrice * 0.5 : this.basePrice;
  }
}

class Gadget extends Product {
  #serials: string[] = [];
  constructor(name: string, price: number, private warrantyYears = 1) {
    super(name, price);
  }
  protected prefix() { return 'GADG'; }
  get price(): number {
    return this.basePrice + this.warrantyYears * 9.99;
  }
  registerSerial(serial: string): void {
    if (!/^[A-Z]{2}\d{6}$/.test(serial)) throw new Error(`bad serial ${serial}`);
    this.#serials.push(serial);
  }
  get serialCount(): number { return this.#serials.length; }
}

class Warehouse {
  private readonly stock = new Map<string, { product: Product; qty: number }>();
  constructor(public readonly city: string) {}
  receive(product: Product, qty: number): this {
    const entry = this.stock.get(product.id);
    if (entry) entry.qty += qty;
    else this.stock.set(product.id, { product, qty });
    return this;
  }
  ship(id: string, qty: number): void {
    const entry = this.stock.get(id);
    if (!entry) throw new Error(`unknown product ${id}`);
    if (entry.qty < qty) throw new Error(`only ${entry.qty} of ${entry.product.name} left`);
    entry.qty -= qty;
  }
  get value(): number {
    let v = 0;
    for (const { product, qty } of this.stock.values()) v += product.price * qty;
    return v;
  }
  report(): string[] {
    return [...this.stock.values()].map(({ product, qty }) => `${product} × ${qty}`);
  }
}

const milk = new Food('Milk 1L', 1.29, new Date(Date.UTC(2024, 6, 2)));
const cheese = new Food('Aged cheese', 8.5, new Date(Date.UTC(2024, 9, 1)));
const phone = new Gadget('Phone', 399, 2);
phone.registerSerial('AB123456');
try { phone.registerSerial('bad-serial'); } catch (e) { console.log((e as Error).message); }

const wh = new Warehouse('Rotterdam').receive(milk, 40).receive(cheese, 12).receive(phone, 5);
wh.ship(phone.id, 2);
for (const attempt of [() => wh.ship(cheese.id, 20), () => wh.ship('NOPE-1', 1)]) {
  try { attempt(); } catch (e) { console.log('ship failed:', (e as Error).message); }
}
console.log(`Warehouse ${wh.city}:`);
wh.report().forEach((line) => console.log('  ' + line));
console.log(`stock value ${wh.value.toFixed(2)}; phone serials registered: ${phone.serialCount}`);
