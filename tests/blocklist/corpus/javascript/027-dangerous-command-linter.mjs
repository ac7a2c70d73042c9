// Lint shell snippets pasted into a chat tool and warn about risky patterns.
// The patterns below are data: nothing in this file ever executes a shell command.
const rules = [
  { id: 'recursive-root-delete', severity: 'error', re: /\brm\s+(-[a-z]*r[a-z]*f|-[a-z]*f[a-z]*r)\s+\/(\s|$)/i, hint: 'never delete from / recursively' },
  { id: 'pipe-to-shell', severity: 'error', re: /\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b/, hint: 'download, inspect, then run' },
  { id: 'world-writable', severity: 'warn', re: /\bchmod\s+(-R\s+)?0?777\b/, hint: 'use the narrowest mode that works, e.g. 755 or 644' },
  { id: 'sudo', severity: 'info', re: /^\s*sudo\b/, hint: 'does this really need root?' },
  { id: 'fork-bomb', severity: 'error', re: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, hint: 'this is a fork bomb' },
  { id: 'dd-to-disk', severity: 'error', re: /\bdd\b.*\bof=\/dev\/(sd|nvme|hd)/, hint: 'writing raw to a disk device destroys data' },
  { id: 'docker-socket', severity: 'warn', re: /\/var\/run\/docker\.sock/, hint: 'mounting the Docker socket grants root on the host' },
  { id: 'eval-input', severity: 'warn', re: /\beval\s+"?\$/, hint: 'eval of variable input is injection-prone' },
];

const snippets = [
  'ls -la ~/projects',
  'rm -rf /',
  'rm -rf ./build',
  'curl -fsSL https://example.com/install.sh | sh',
  'wget -qO- https://example.org/setup | sudo bash',
  'sudo chmod -R 777 /srv/www',
  ':(){ :|:& };:',
  'dd if=ubuntu.iso of=/dev/sdb bs=4M',
  'docker run -v /var/run/docker.sock:/var/run/docker.sock alpine',
  'eval "$USER_INPUT"',
  "grep -r 'TODO' src | wc -l",
];

function looksLikeShell(s) {
  if (!s.trim()) return false;
  return /[|;&$`]/.test(s) || /^\s*(sudo|rm|curl|wget|chmod|dd|docker|eval|grep|ls)\b/.test(s);
}

const icon = { error: '✖', warn: '!', info: 'i' };
const summary = { error: 0, warn: 0, info: 0 };
for (const snippet of snippets) {
  if (!looksLikeShell(snippet)) continue;
  const hits = rules.filter((r) => r.re.test(snippet));
  if (!hits.length) {
    console.log(`✔ ${snippet}`);
    continue;
  }
  console.log(`${icon[hits[0].severity]} ${snippet}`);
  for (const h of hits) {
    summary[h.severity]++;
    console.log(`    ${h.severity.padEnd(5)} ${h.id}: ${h.hint}`);
  }
}
console.log(`\n${snippets.length} snippets: ${summary.error} errors, ${summary.warn} warnings, ${summary.info} notes`);

// Sanity checks on the rules themselves.
const mustMatch = { 'recursive-root-delete': 'rm -fr /', 'pipe-to-shell': 'curl x | bash', 'fork-bomb': ':(){ :|:& };:' };
for (const [id, sample] of Object.entries(mustMatch)) {
  const rule = rules.find((r) => r.id === id);
  if (!rule.re.test(sample)) throw new Error(`rule ${id} missed "${sample}"`);
}
console.log('rule self-check passed');
