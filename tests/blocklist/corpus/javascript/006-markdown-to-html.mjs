// Convert a subset of Markdown (headings, lists, emphasis, code, links) to HTML.
const md = `# Release notes

Version **2.1** brings *faster* builds and \`--watch\` mode.

## Changes

- Added [docs](https://example.com/docs) link
- Fixed a crash when the path contains \`"quotes"\`
- Removed the \`--unsafe\` flag

## Install

\`\`\`
npm install --save-dev demo-tool
demo-tool --help
\`\`\`

That's all, folks!`;

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function inline(s) {
  return escapeHtml(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>')
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, '<a href="$2">$1</a>');
}

function render(markdown) {
  const out = [];
  let inList = false;
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      out.push(inCode ? '</pre>' : '<pre>');
      inCode = !inCode;
      continue;
    }
    if (inCode) { out.push(escapeHtml(line)); continue; }
    const item = /^[-*] (.*)/.exec(line);
    if (item && !inList) { out.push('<ul>'); inList = true; }
    if (!item && inList) { out.push('</ul>'); inList = false; }
    if (item) { out.push(`  <li>${inline(item[1])}</li>`); continue; }
    const h = line.match(/^(#{1,6})\s+(.*)$/);
    if (h) out.push(`<h${h[1].length}>${inline(h[2])}</h${h[1].length}>`);
    else if (line.trim()) out.push(`<p>${inline(line)}</p>`);
  }
  if (inList) out.push('</ul>');
  return out.join('\n');
}

const html = render(md);
console.log(html);
const tagCount = (html.match(/<[a-z0-9]+/g) || []).length;
console.log(`\n${tagCount} opening tags, ${html.length} characters`);
