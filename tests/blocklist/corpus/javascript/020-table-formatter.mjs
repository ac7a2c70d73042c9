// Render rows as aligned text tables (plain, Markdown and box-drawing styles).
const rows = [
  { language: 'JavaScript', year: 1995, typing: 'dynamic', creator: 'Brendan Eich', share: 0.634 },
  { language: 'Python', year: 1991, typing: 'dynamic', creator: 'Guido van Rossum', share: 0.49 },
  { language: 'Rust', year: 2015, typing: 'static', creator: 'Graydon Hoare', share: 0.131 },
  { language: 'Go', year: 2009, typing: 'static', creator: 'Griesemer, Pike, Thompson', share: 0.134 },
  { language: 'Zig', year: 2016, typing: 'static', creator: 'Andrew Kelley', share: 0.009 },
];

const columns = [
  { key: 'language', title: 'Language' },
  { key: 'year', title: 'Year', align: 'right' },
  { key: 'typing', title: 'Typing' },
  { key: 'creator', title: 'Creator', max: 18 },
  { key: 'share', title: 'Share', align: 'right', format: (v) => `${(v * 100).toFixed(1)}%` },
];

function cells(row) {
  return columns.map(({ key, format = String, max }) => {
    let s = format(row[key]);
    if (max && s.length > max) s = s.slice(0, max - 1) + '…';
    return s;
  });
}

function table(data, style) {
  const body = data.map(cells);
  const widths = columns.map((c, i) => Math.max(c.title.length, ...body.map((r) => r[i].length)));
  const pad = (s, i) => (columns[i].align === 'right' ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const line = (r, sep, edge = '') => `${edge}${r.map(pad).join(sep)}${edge}`;
  const titles = columns.map((c) => c.title);
  if (style === 'markdown') {
    const rule = widths.map((w, i) => (columns[i].align === 'right' ? '-'.repeat(w - 1) + ':' : '-'.repeat(w)));
    return [line(titles, ' | ', '| '), `| ${rule.join(' | ')} |`, ...body.map((r) => line(r, ' | ', '| '))].join('\n').replace(/\| $/gm, '|');
  }
  if (style === 'box') {
    const bar = (l, m, r) => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
    return [bar('┌', '┬', '┐'), line(titles, ' │ ', '│ ').replace(/ │ $/, ' │'), bar('├', '┼', '┤'),
      ...body.map((r) => line(r, ' │ ', '│ ')), bar('└', '┴', '┘')].join('\n');
  }
  return [line(titles, '  '), widths.map((w) => '='.repeat(w)).join('  '), ...body.map((r) => line(r, '  '))].join('\n');
}

const sorted = [...rows].sort((a, b) => b.share - a.share);
for (const style of ['plain', 'markdown', 'box']) {
  console.log(`--- ${style} ---`);
  console.log(table(sorted, style));
}
