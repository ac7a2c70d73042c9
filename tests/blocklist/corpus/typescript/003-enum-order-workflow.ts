// An order workflow driven by enums, with an exhaustive switch and a transition table.
enum OrderStatus {
  Draft = 'DRAFT',
  Submitted = 'SUBMITTED',
  Paid = 'PAID',
  Shipped = 'SHIPPED',
  Delivered = 'DELIVERED',
  Cancelled = 'CANCELLED',
}

enum Priority {
  Low = 1,
  Normal,
  High,
  Urgent = 10,
}

const transitions: Record<OrderStatus, readonly OrderStatus[]> = {
  [OrderStatus.Draft]: [OrderStatus.Submitted, OrderStatus.Cancelled],
  [OrderStatus.Submitted]: [OrderStatus.Paid, OrderStatus.Cancelled],
  [OrderStatus.Paid]: [OrderStatus.Shipped, OrderStatus.Cancelled],
  [OrderStatus.Shipped]: [OrderStatus.Delivered],
  [OrderStatus.Delivered]: [],
  [OrderStatus.Cancelled]: [],
};

function assertNever(x: never): never {
  throw new Error(`unhandled value: ${JSON.stringify(x)}`);
}

function customerMessage(status: OrderStatus): string {
  switch (status) {
    case OrderStatus.Draft: return 'Your cart is saved.';
    case OrderStatus.Submitted: return 'We received your order.';
    case OrderStatus.Paid: return 'Payment confirmed, preparing shipment.';
    case OrderStatus.Shipped: return 'On its way!';
    case OrderStatus.Delivered: return 'Delivered. Enjoy!';
    case OrderStatus.Cancelled: return 'The order was cancelled.';
    default: return assertNever(status);
  }
}

class Order {
  private history: Array<{ from: OrderStatus; to: OrderStatus }> = [];
  status: OrderStatus = OrderStatus.Draft;
  constructor(readonly id: string, readonly priority: Priority = Priority.Normal) {}

  moveTo(next: OrderStatus): boolean {
    if (!transitions[this.status].includes(next)) return false;
    this.history.push({ from: this.status, to: next });
    this.status = next;
    return true;
  }
  get trail(): string {
    return [OrderStatus.Draft, ...this.history.map((h) => h.to)].join(' → ');
  }
}

const orders = [new Order('A-1', Priority.High), new Order('A-2'), new Order('A-3', Priority.Urgent)];
const plans: Record<string, OrderStatus[]> = {
  'A-1': [OrderStatus.Submitted, OrderStatus.Paid, OrderStatus.Shipped, OrderStatus.Delivered],
  'A-2': [OrderStatus.Submitted, OrderStatus.Shipped, OrderStatus.Cancelled],
  'A-3': [OrderStatus.Cancelled, OrderStatus.Paid],
};

for (const order of orders.sort((a, b) => b.priority - a.priority)) {
  for (const step of plans[order.id]) {
    if (!order.moveTo(step)) console.log(`  ${order.id}: cannot go from ${order.status} to ${step}`);
  }
  console.log(`${order.id} [${Priority[order.priority]}=${order.priority}] ${order.trail} — ${customerMessage(order.status)}`);
}

const numericMembers = Object.keys(Priority).filter((k) => isNaN(Number(k)));
console.log('Priority members:', numericMembers.join(', '), '| reverse lookup of 3:', Priority[3]);
