// Summarise a small sales CSV: totals per region, averages, and the top product.
const csv = `region,product,units,price
North,Widget,12,3.50
South,Gadget,4,12.00
North,Gadget,7,12.00
East,Widget,20,3.50
South,"Widget, Deluxe",3,9.99
East,Doohickey,15,1.25
North,Doohickey,9,1.25
West,Gadget,11,12.00
West,"Widget, Deluxe",6,9.99`;

function parseLine(line) {
  const out = [];
  let cur = '';
  let inQuotes = false;
  for (const ch of line) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (ch === ',' && !inQuotes) { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out;
}

const [header, ...rows] = csv.split(/\r?\n/).filter(Boolean);
const cols = parseLine(header);
const records = rows.map((r) => {
  const vals = parseLine(r);
  return Object.fromEntries(cols.map((c, i) => [c, vals[i]]));
});

const byRegion = new Map();
const byProduct = new Map();
for (const rec of records) {
  const revenue = Number(rec.units) * Number(rec.price);
  byRegion.set(rec.region, (byRegion.get(rec.region) ?? 0) + revenue);
  byProduct.set(rec.product, (byProduct.get(rec.product) ?? 0) + Number(rec.units));
}

const total = [...byRegion.values()].reduce((a, b) => a + b, 0);
console.log('Revenue by region');
for (const [region, rev] of [...byRegion].sort((a, b) => b[1] - a[1])) {
  const share = rev / total * 100;
  console.log(`  ${region.padEnd(6)} ${rev.toFixed(2).padStart(8)}  (${share.toFixed(1)}%)`);
}
const avgUnits = records.reduce((s, r) => s + Number(r.units), 0) / records.length;
const [topProduct, topUnits] = [...byProduct].sort((a, b) => b[1] - a[1])[0];
console.log(`Total revenue: ${total.toFixed(2)}`);
console.log(`Average units per row: ${avgUnits.toFixed(2)}`);
console.log(`Best seller by units: ${topProduct} (${topUnits})`);
