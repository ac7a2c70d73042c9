// Parse, normalise and rebuild URLs; strip tracking parameters and group links by host.
const links = [
  'https://example.com/products?id=42&utm_source=newsletter&utm_medium=email&ref=abc',
  'HTTPS://Example.COM:443/products/?id=42#reviews',
  'http://localhost:3000/api/v1/users?page=2&per_page=50&sort=-created',
  'https://docs.example.org/guide/../guide/intro.html?lang=en&lang=de',
  'https://example.com/search?q=rm+-rf+%2F+%26%26+echo+%22done%22',
  'mailto:someone@example.com?subject=Hello%20there',
  'not a url at all',
  '/relative/path?x=1',
];

const TRACKING = /^(utm_\w+|fbclid|gclid|ref)$/;

function normalise(raw, base) {
  let url;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    return { raw, error: 'invalid URL' };
  }
  for (const key of [...url.searchParams.keys()]) if (TRACKING.test(key)) url.searchParams.delete(key);
  url.searchParams.sort();
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
  url.hash = '';
  return { raw, url };
}

const groups = new Map();
for (const raw of links) {
  const { url, error } = normalise(raw, raw.startsWith('/') ? 'https://app.example.com' : undefined);
  if (error) { console.log(`✖ ${JSON.stringify(raw)}: ${error}`); continue; }
  const params = Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => {
    const all = url.searchParams.getAll(k);
    return [k, all.length > 1 ? all : all[0]];
  }));
  console.log(`${url.href}\n    protocol=${url.protocol} host=${url.host || '(none)'} path=${url.pathname} params=${JSON.stringify(params)}`);
  const key = url.hostname || url.protocol;
  groups.set(key, [...(groups.get(key) ?? []), url.pathname]);
}

console.log('\nBy host:');
for (const [host, paths] of [...groups].sort()) console.log(`  ${host}: ${paths.length} link(s) ${JSON.stringify([...new Set(paths)])}`);

const built = new URL('https://api.example.com/v2/reports');
built.search = new URLSearchParams({ from: '2024-01-01', to: '2024-01-31', tags: 'a,b', note: 'x & y = "z"' }).toString();
console.log('\nBuilt:', built.toString());
console.log('Decoded query:', decodeURIComponent(built.search.slice(1)).replace(/\+/g, ' '));
