// Generate a table of contents for a Markdown document, with GitHub-style anchors.
interface Heading {
  level: number;
  text: string;
  anchor: string;
  line: number;
}

const doc = `# Project Handbook

Intro text with \`inline code\` and a [link](https://example.com).

## Getting Started

### Install dependencies

\`\`\`bash
# this heading-looking line is inside a code block and must be ignored
npm ci
\`\`\`

### Run the "dev" server

## Configuration & Secrets

### Environment variables

### Environment variables

## FAQ: Why doesn't \`npm test\` work?

#### Deeply nested note
`;

function slug(text: string, used: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/`([^`]*)`/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
  const n = used.get(base) ?? 0;
  used.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

function extractHeadings(markdown: string): Heading[] {
  const used = new Map<string, number>();
  const out: Heading[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^(`{3,}|~{3,})/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const m = /^(#{1,6})\s+(.+?)\s*#*$/.exec(line);
    if (m) out.push({ level: m[1].length, text: m[2], anchor: slug(m[2], used), line: i + 1 });
  });
  return out;
}

function renderToc(headings: readonly Heading[], maxDepth = 3): string {
  const minLevel = Math.min(...headings.map((h) => h.level));
  return headings
    .filter((h) => h.level - minLevel < maxDepth && h.level > minLevel)
    .map((h) => `${'  '.repeat(h.level - minLevel - 1)}- [${h.text.replace(/([[\]])/g, '\\$1')}](#${h.anchor})`)
    .join('\n');
}

const headings = extractHeadings(doc);
console.log('Headings found:');
for (const h of headings) console.log(`  L${String(h.line).padStart(2)} h${h.level} #${h.anchor}`);
console.log('\n## Table of contents\n');
console.log(renderToc(headings));

const skippedLevels = headings.filter((h, i) => i > 0 && h.level - headings[i - 1].level > 1);
skippedLevels.forEach((h) => console.log(`\nwarning: line ${h.line} jumps to h${h.level} ("${h.text}")`));
