// Extract product listings from an HTML page. The fetch helper exists for real use,
// but this run parses a saved copy of the page instead of touching the network.
async function fetchPage(url) {
  const res = await fetch(url, { headers: { 'User-Agent': 'price-watch/0.1' } });
  if (!res.ok) throw new Error(`GET ${url} -> ${res.status}`);
  return res.text();
}

const savedPage = `<!doctype html>
<html><head><title>Shop &amp; Co — Keyboards</title></head>
<body>
  <ul class="products">
    <li class="product" data-sku="KB-101"><a href="/p/kb-101">Clicky Keyboard</a>
      <span class="price">$89.99</span><span class="stock">in stock</span></li>
    <li class="product" data-sku="KB-202"><a href="/p/kb-202">Silent &quot;Office&quot; Keyboard</a>
      <span class="price">$49.50</span><span class="stock">out of stock</span></li>
    <li class="product" data-sku="KB-303"><a href="/p/kb-303">Split Ergo Keyboard</a>
      <span class="price">$219.00</span><span class="stock">3 left</span></li>
  </ul>
  <a class="next" href="/keyboards?page=2">Next</a>
</body></html>`;

const decode = (s) => s.replace(/&(amp|quot|lt|gt|#39);/g, (_, e) => ({ amp: '&', quot: '"', lt: '<', gt: '>', '#39': "'" })[e]);

function parseProducts(html, baseUrl) {
  const items = [];
  const itemRe = /<li class="product" data-sku="([^"]+)">([\s\S]*?)<\/li>/g;
  for (const [, sku, inner] of html.matchAll(itemRe)) {
    const link = inner.match(/<a href="([^"]+)">([^<]+)<\/a>/);
    const price = inner.match(/class="price">\$([\d.]+)</);
    const stock = inner.match(/class="stock">([^<]+)</)?.[1] ?? 'unknown';
    items.push({
      sku,
      name: decode(link[2]),
      url: new URL(link[1], baseUrl).href,
      price: price ? Number(price[1]) : null,
      available: !/out of stock/i.test(stock),
    });
  }
  const next = html.match(/<a class="next" href="([^"]+)"/);
  return { title: decode(html.match(/<title>(.*?)<\/title>/)[1]), items, next: next && new URL(next[1], baseUrl).href };
}

const base = 'https://shop.example.com/keyboards';
const { title, items, next } = parseProducts(savedPage, base);
console.log(`Page: ${title}`);
for (const p of items) console.log(`${p.sku}  ${p.name.padEnd(26)} ${p.price.toFixed(2).padStart(7)}  ${p.available ? 'yes' : 'no '}  ${p.url}`);
const inStock = items.filter((p) => p.available);
console.log(`Cheapest available: ${inStock.reduce((a, b) => (a.price < b.price ? a : b)).name}`);
console.log(`Next page would be ${next} (not fetched; fetchPage is ${typeof fetchPage})`);
