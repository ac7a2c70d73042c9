// Word-wrap and fully justify paragraphs, then centre a title and box the result.
const text = `The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs!
How vexingly quick daft zebras jump; the five boxing wizards jump quickly.

Sphinx of black quartz, judge my vow. A wizard's job is to vex chumps quickly in fog.`;

function wrap(paragraph, width) {
  const words = paragraph.split(/\s+/).filter(Boolean);
  const lines = [];
  let line = [];
  let len = 0;
  for (const w of words) {
    if (len + w.length + line.length > width && line.length) {
      lines.push(line);
      line = [];
      len = 0;
    }
    line.push(w);
    len += w.length;
  }
  if (line.length) lines.push(line);
  return lines;
}

function justify(words, width, last) {
  if (last || words.length === 1) return words.join(' ').padEnd(width);
  const letters = words.reduce((s, w) => s + w.length, 0);
  const gaps = words.length - 1;
  const spaces = width - letters;
  const base = Math.floor(spaces / gaps);
  let extra = spaces % gaps;
  return words.reduce((out, w, i) => {
    if (i === 0) return w;
    const pad = base + (extra-- > 0 ? 1 : 0);
    return out + ' '.repeat(pad) + w;
  }, '');
}

function format(body, width, title) {
  const paragraphs = body.split(/\n\s*\n/);
  const out = [];
  const t = ` ${title} `;
  const left = Math.floor((width - t.length) / 2);
  out.push('╔' + '═'.repeat(left) + t + '═'.repeat(width - left - t.length) + '╗');
  paragraphs.forEach((p, pi) => {
    const lines = wrap(p, width);
    lines.forEach((l, i) => out.push('║' + justify(l, width, i === lines.length - 1) + '║'));
    if (pi < paragraphs.length - 1) out.push('║' + ' '.repeat(width) + '║');
  });
  out.push('╚' + '═'.repeat(width) + '╝');
  return out.join('\n');
}

for (const width of [36, 52]) {
  console.log(format(text, width, `Pangrams @ ${width}`));
  console.log();
}

const letters = new Set(text.toLowerCase().replace(/[^a-z]/g, ''));
console.log(`distinct letters: ${letters.size} / 26${letters.size === 26 ? ' (pangram!)' : ''}`);
