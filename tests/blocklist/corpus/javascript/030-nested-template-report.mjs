// Build a plain-text and a Markdown report with nested template literals.
const team = {
  name: 'Platform',
  sprint: { number: 42, start: '2024-04-01', end: '2024-04-12' },
  members: [
    { name: 'Lin', tasks: [{ title: 'Upgrade Node to 24', points: 3, done: true }, { title: 'Fix flaky `fs` test', points: 2, done: false }] },
    { name: 'Sam', tasks: [{ title: 'Write runbook for "on-call"', points: 5, done: true }] },
    { name: 'Noor', tasks: [] },
  ],
};

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const pct = (a, b) => (b === 0 ? 'n/a' : `${Math.round(a / b * 100)}%`);

const plain = `Team ${team.name} — sprint #${team.sprint.number} (${team.sprint.start} → ${team.sprint.end})
${team.members.map((m) => `  ${m.name}: ${m.tasks.length ? `${m.tasks.filter((t) => t.done).length}/${m.tasks.length} tasks done, ${sum(m.tasks.map((t) => t.points))} pts${
  m.tasks.some((t) => !t.done) ? ` (open: ${m.tasks.filter((t) => !t.done).map((t) => `"${t.title}"`).join(', ')})` : ''
}` : 'no tasks assigned'}`).join('\n')}
Velocity: ${sum(team.members.flatMap((m) => m.tasks.filter((t) => t.done).map((t) => t.points)))} of ${sum(team.members.flatMap((m) => m.tasks.map((t) => t.points)))} points (${pct(
  sum(team.members.flatMap((m) => m.tasks.filter((t) => t.done).map((t) => t.points))),
  sum(team.members.flatMap((m) => m.tasks.map((t) => t.points))),
)})`;
console.log(plain);

const escapeMd = (s) => s.replace(/([`*_|])/g, '\\$1');
const markdown = `## Sprint ${team.sprint.number}

| Member | Task | Points | Status |
|---|---|---:|---|
${team.members.flatMap((m) => (m.tasks.length ? m.tasks : [null]).map((t) =>
  t ? `| ${m.name} | ${escapeMd(t.title)} | ${t.points} | ${t.done ? '✅' : `⏳ ${'in progress'}`} |` : `| ${m.name} | — | 0 | ${`idle`} |`)).join('\n')}

_Generated ${new Date(Date.UTC(2024, 3, 12)).toISOString().split('T')[0]}_`;
console.log('\n' + markdown);
console.log(`\nlines in markdown: ${markdown.split(/\n/).length}, pipes: ${(markdown.match(/\|/g) || []).length}`);
