// Generate a plain-text invoice with Intl formatting, tax rules per line and nested templates.
interface LineItem {
  sku: string;
  description: string;
  quantity: number;
  unitPrice: number; // in minor units (cents)
  taxRate: 0 | 0.09 | 0.21;
}

interface Invoice {
  number: string;
  issued: Date;
  dueDays: number;
  currency: 'EUR' | 'USD';
  customer: { name: string; address: readonly string[]; vatId?: string };
  items: readonly LineItem[];
  discountPct?: number;
}

const money = (cents: number, currency: Invoice['currency']) =>
  new Intl.NumberFormat('nl-NL', { style: 'currency', currency }).format(cents / 100);

function totals(inv: Invoice) {
  const lines = inv.items.map((i) => {
    const net = Math.round(i.quantity * i.unitPrice * (1 - (inv.discountPct ?? 0) / 100));
    return { ...i, net, tax: Math.round(net * i.taxRate) };
  });
  const byRate = new Map<number, { net: number; tax: number }>();
  for (const l of lines) {
    const acc = byRate.get(l.taxRate) ?? { net: 0, tax: 0 };
    byRate.set(l.taxRate, { net: acc.net + l.net, tax: acc.tax + l.tax });
  }
  const net = lines.reduce((s, l) => s + l.net, 0);
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  return { lines, byRate, net, tax, gross: net + tax };
}

function render(inv: Invoice): string {
  const t = totals(inv);
  const due = new Date(inv.issued.getTime() + inv.dueDays * 86_400_000);
  const d = (x: Date) => x.toLocaleDateString('en-GB', { day: '2-digit', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const m = (c: number) => money(c, inv.currency).padStart(12);
  return `INVOICE ${inv.number}
Issued ${d(inv.issued)} · due ${d(due)} (${inv.dueDays} days)

Bill to:
${[inv.customer.name, ...inv.customer.address].map((l) => `  ${l}`).join('\n')}${inv.customer.vatId ? `\n  VAT ${inv.customer.vatId}` : ''}

${'SKU'.padEnd(8)}${'Description'.padEnd(26)}${'Qty'.padStart(5)}${'Net'.padStart(12)}  VAT
${t.lines.map((l) => `${l.sku.padEnd(8)}${(l.description.length > 24 ? `${l.description.slice(0, 23)}…` : l.description).padEnd(26)}${String(l.quantity).padStart(5)}${m(l.net)}  ${`${l.taxRate * 100}%`.padStart(3)}`).join('\n')}
${'-'.repeat(55)}
${inv.discountPct ? `Discount applied: ${inv.discountPct}%\n` : ''}${[...t.byRate].sort(([a], [b]) => a - b).map(([rate, v]) => `VAT ${`${rate * 100}%`.padStart(3)} on ${money(v.net, inv.currency)}: ${money(v.tax, inv.currency)}`).join('\n')}
${'Subtotal'.padEnd(39)}${m(t.net)}
${'VAT'.padEnd(39)}${m(t.tax)}
${'TOTAL'.padEnd(39)}${m(t.gross)}`;
}

const invoice: Invoice = {
  number: `INV-${2024}-${String(17).padStart(4, '0')}`,
  issued: new Date(Date.UTC(2024, 2, 28)),
  dueDays: 30,
  currency: 'EUR',
  customer: { name: 'Example B.V.', address: ['Keizersgracht 1', '1015 CJ Amsterdam'], vatId: 'NL000099998B57' },
  items: [
    { sku: 'CONS-1', description: 'Consulting (hours)', quantity: 12, unitPrice: 9500, taxRate: 0.21 },
    { sku: 'BOOK-7', description: 'Book: "Effective TypeScript"', quantity: 2, unitPrice: 4250, taxRate: 0.09 },
    { sku: 'TRN-2', description: 'Training voucher', quantity: 1, unitPrice: 25000, taxRate: 0 },
  ],
  discountPct: 5,
};
console.log(render(invoice));
