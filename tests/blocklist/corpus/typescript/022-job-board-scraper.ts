// Scrape job postings from HTML. `fetchHtml` is how the real tool downloads pages; this run
// only parses an inline snapshot, so no request is ever made.
interface Job {
  id: string;
  title: string;
  company: string;
  location: string;
  remote: boolean;
  salary?: { min: number; max: number; currency: string };
  tags: string[];
}

async function fetchHtml(url: string, signal?: AbortSignal): Promise<string> {
  const res = await fetch(url, { signal, headers: { Accept: 'text/html' } });
  if (!res.ok) throw new Error(`${res.status} ${res.statusText} for ${url}`);
  return await res.text();
}

const snapshot = `
<section id="jobs">
  <article class="job" id="j-101">
    <h2>Senior TypeScript Engineer</h2>
    <p class="company">Acme &amp; Sons</p><p class="location">Berlin (Remote OK)</p>
    <p class="salary">€70,000 – €90,000</p>
    <ul class="tags"><li>typescript</li><li>node</li><li>postgres</li></ul>
  </article>
  <article class="job" id="j-102">
    <h2>Site Reliability Engineer</h2>
    <p class="company">Example Corp</p><p class="location">Amsterdam</p>
    <ul class="tags"><li>kubernetes</li><li>linux</li></ul>
  </article>
  <article class="job" id="j-103">
    <h2>Frontend Developer &lt;React&gt;</h2>
    <p class="company">Widgets Inc.</p><p class="location">Remote</p>
    <p class="salary">$95,000 - $120,000</p>
    <ul class="tags"><li>react</li><li>typescript</li><li>css</li></ul>
  </article>
</section>`;

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const decode = (s: string) => s.replace(/&(#?\w+);/g, (m, e: string) => entities[e] ?? m);
const textOf = (html: string, cls: string): string | undefined =>
  new RegExp(`<p class="${cls}">([^<]*)</p>`).exec(html)?.[1];

function parseSalary(s: string | undefined): Job['salary'] {
  if (!s) return undefined;
  const nums = [...decode(s).matchAll(/([€$£])([\d,]+)/g)];
  if (nums.length !== 2) return undefined;
  const symbol = nums[0][1] as '€' | '$' | '£';
  const currency = ({ '€': 'EUR', $: 'USD', '£': 'GBP' } as const)[symbol];
  const [min, max] = nums.map((m) => Number(m[2].replace(/,/g, '')));
  return { min, max, currency };
}

function parseJobs(html: string): Job[] {
  return [...html.matchAll(/<article class="job" id="([^"]+)">([\s\S]*?)<\/article>/g)].map(([, id, body]) => {
    const location = decode(textOf(body, 'location') ?? 'unknown');
    return {
      id,
      title: decode(/<h2>(.*?)<\/h2>/.exec(body)?.[1] ?? ''),
      company: decode(textOf(body, 'company') ?? ''),
      location,
      remote: /remote/i.test(location),
      salary: parseSalary(textOf(body, 'salary')),
      tags: [...body.matchAll(/<li>([^<]+)<\/li>/g)].map((m) => m[1]),
    };
  });
}

const jobs = parseJobs(snapshot);
for (const j of jobs) {
  const pay = j.salary ? `${j.salary.currency} ${j.salary.min / 1000}k–${j.salary.max / 1000}k` : 'salary n/a';
  console.log(`${j.id} ${j.title} @ ${j.company} [${j.location}${j.remote ? ', remote' : ''}] ${pay} #${j.tags.join(' #')}`);
}
const tagCounts = jobs.flatMap((j) => j.tags).reduce<Record<string, number>>((m, t) => ({ ...m, [t]: (m[t] ?? 0) + 1 }), {});
console.log('popular tags:', Object.entries(tagCounts).filter(([, n]) => n > 1).map(([t]) => t).join(', '));
console.log(`would fetch next page via ${fetchHtml.name}('https://jobs.example.com/?page=2') — skipped offline`);
