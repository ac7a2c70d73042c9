// Count word frequencies in a passage, ignoring stop words and punctuation.
const text = `It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was the
epoch of incredulity, it was the season of Light, it was the season of Darkness,
it was the spring of hope, it was the winter of despair.`;

const stopWords = new Set(['it', 'was', 'the', 'of', 'a', 'an', 'and']);

function tokenize(s) {
  return s.toLowerCase().match(/[a-z']+/g) ?? [];
}

const counts = {};
for (const w of tokenize(text)) {
  if (stopWords.has(w)) continue;
  counts[w] = (counts[w] || 0) + 1;
}

const sorted = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
const maxCount = sorted[0][1];
console.log('word          count  histogram');
for (const [word, n] of sorted) {
  const bar = '#'.repeat(Math.round(n / maxCount * 20));
  console.log(`${word.padEnd(13)} ${String(n).padStart(5)}  ${bar}`);
}

const totalWords = tokenize(text).length;
const unique = new Set(tokenize(text)).size;
console.log(`\n${totalWords} words, ${unique} unique, lexical density ${(unique / totalWords).toFixed(3)}`);

// Longest words, using a regex to strip apostrophes first
const longest = Object.keys(counts)
  .map((w) => w.replace(/'/g, ''))
  .sort((a, b) => b.length - a.length)
  .slice(0, 3);
console.log('Longest words:', longest.join(', '));

// Ratio of capitalised words; the regex literal sits right next to a division.
const capsRatio = (text.match(/\b[A-Z][a-z]*/g) ?? []).length / totalWords;
const splitters = [/,\s*/, /;\s*/, /\.\s*/];
const clauses = splitters.reduce((parts, re) => parts.flatMap((p) => p.split(re)), [text]).filter((c) => c.trim());
console.log(`capitalised: ${(capsRatio * 100).toFixed(1)}%, clauses: ${clauses.length}, words/clause: ${(totalWords / clauses.length).toFixed(1)}`);
