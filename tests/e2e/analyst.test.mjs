// The analyst's afternoon, as Claude Code's calls make it (issue 29): a
// 200 MB sales.csv taken from the project with files: [{from}] (never
// through the conversation), IQR outliers found, two plots the model sees,
// cleaned.csv and report.xlsx exported, ten more calls on the same
// DataFrame and one chatty one, in a python-ml session created as
// {language: "python", ml: true} and called with language "python". A
// client applying Claude Code's limits takes every result.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { e2e, runResult } from './lib/server.mjs';
import { createSession, waitActive, withStateDir } from './lib/sessions.mjs';
import { fopOk } from './lib/files.mjs';
import { assertClaudeCodeTakes, claudeCodeSees } from './lib/claude_code.mjs';

const REGIONS = ['north', 'south', 'east', 'west'];
const BLOCK_ROWS = 100_000;
const BLOCKS = 70; // 204 MB
const OUTLIERS = 37; // rows with units far above the rest

/** A small deterministic generator (xorshift32). */
function rng(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
}

/**
 * sales.csv: date, region, product, units (1 to 100), price; one block of
 * rows written again and again, with OUTLIERS rows of 10 000 units or more
 * between blocks. Returns the number of rows.
 */
function writeSales(file) {
  const r = rng(29);
  const lines = [];
  for (let i = 0; i < BLOCK_ROWS; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const month = String(1 + (i % 12)).padStart(2, '0');
    lines.push(`2025-${month}-${day},${REGIONS[r() % 4]},p${r() % 50},${1 + (r() % 100)},${(1 + (r() % 9999) / 100).toFixed(2)}\n`);
  }
  const block = Buffer.from(lines.join(''));
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'date,region,product,units,price\n');
  let outliers = 0;
  for (let b = 0; b < BLOCKS; b++) {
    fs.writeSync(fd, block);
    for (; outliers < Math.round(((b + 1) * OUTLIERS) / BLOCKS); outliers++)
      fs.writeSync(fd, `2025-06-15,${REGIONS[outliers % 4]},p7,${10_000 + outliers},9.99\n`);
  }
  fs.closeSync(fd);
  return BLOCKS * BLOCK_ROWS + OUTLIERS;
}

/** Lines of a file, read in pieces. */
function countLines(file) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(8 << 20);
  let n = 0;
  for (let got; (got = fs.readSync(fd, buf, 0, buf.length, null)) > 0;)
    for (let i = buf.indexOf(10, 0); i !== -1 && i < got; i = buf.indexOf(10, i + 1)) n++;
  fs.closeSync(fd);
  return n;
}

e2e('the analyst scenario: a 200 MB CSV from the project, outliers, two plots seen, files exported, ten more calls, all within Claude Code\'s limits', { timeoutMs: 600_000 }, async (h) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-analyst-'));
  h.t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const rows = writeSales(path.join(root, 'sales.csv'));
  assert.ok(fs.statSync(path.join(root, 'sales.csv')).size > 190e6, 'about 200 MB');

  const st = withStateDir(h);
  const s = await h.start({
    env: st.env({ SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python-ml', SANDBOX_PYTHON_ML_WORK_MB: '640', SANDBOX_PYTHON_ML_MEMORY_MB: '3072' }),
    args: ['--files-root', root],
  });
  await createSession(s, 'python', { name: 'analyst', ml: true });
  await waitActive(s, 'analyst');
  const ask = async (code, extra = {}) => {
    const r = await s.client.callTool({ name: 'sandbox_execute', arguments: { session: 'analyst', language: 'python', code, timeout: 240_000, ...extra } }, undefined, { timeout: 300_000 });
    assertClaudeCodeTakes(r);
    const o = runResult(r);
    assert.equal(o.exitCode, 0, JSON.stringify(o).slice(0, 3000));
    return { o, r };
  };

  // The CSV comes from the project by path; the model never reads it.
  let { o } = await ask("import pandas as pd\ndf = pd.read_csv('data/sales.csv')\ndf['revenue'] = df.units * df.price\nprint(len(df), list(df.columns))",
    { files: [{ path: 'data/sales.csv', from: 'sales.csv' }] });
  assert.equal(o.stdout.trim(), `${rows} ['date', 'region', 'product', 'units', 'price', 'revenue']`);
  assert.equal(o.stateKept, true);

  // IQR outliers: exactly the rows planted.
  ({ o } = await ask('q1, q3 = df.units.quantile([0.25, 0.75])\niqr = q3 - q1\nout = (df.units < q1 - 1.5 * iqr) | (df.units > q3 + 1.5 * iqr)\nprint(int(out.sum()), int(df[out].units.min()))'));
  assert.equal(o.stdout.trim(), `${OUTLIERS} 10000`);

  // Two plots, seen by the model as images in Claude Code.
  const plots = await ask("import matplotlib.pyplot as plt\nplt.figure(figsize=(5, 3), dpi=60)\ndf[~out].units.plot.hist(bins=50)\nplt.figure(figsize=(5, 3), dpi=60)\ndf.groupby('region').revenue.sum().plot.bar()\nplt.show()\nprint('drawn')");
  const seen = claudeCodeSees(plots.r);
  assert.equal(seen.filter((b) => b.type === 'image' && b.mimeType === 'image/png').length, 2, 'two figures the model sees');

  // The cleaned data and a report, exported to the project.
  ({ o } = await ask("clean = df[~out]\nclean.drop(columns='revenue').to_csv('cleaned.csv', index=False)\nsummary = clean.groupby('region').agg(units=('units', 'sum'), revenue=('revenue', 'sum'))\nsummary.to_excel('report.xlsx')\nprint(len(clean))"));
  assert.equal(o.stdout.trim(), String(rows - OUTLIERS));
  let x = await fopOk(s, { action: 'export', session: 'analyst', path: 'cleaned.csv', to: 'out/cleaned.csv' }, { requestTimeoutMs: 300_000 });
  assert.ok(x.size > 190e6, `cleaned.csv is ${x.size} bytes`);
  assert.equal(countLines(path.join(root, 'out/cleaned.csv')), rows - OUTLIERS + 1, 'every kept row and the header');
  x = await fopOk(s, { action: 'export', session: 'analyst', path: 'report.xlsx', to: path.join(root, 'out/report.xlsx') });
  const xlsx = fs.readFileSync(path.join(root, 'out/report.xlsx'));
  assert.equal(xlsx.subarray(0, 2).toString(), 'PK', 'an Office Open XML file (a zip)');

  // Ten more calls on the same DataFrame: its state is kept throughout.
  for (let i = 0; i < 10; i++) {
    const region = REGIONS[i % 4];
    ({ o } = await ask(`print(int(df[df.region == '${region}'].units.sum() > 0), len(df))`));
    assert.equal(o.stdout.trim(), `1 ${rows}`);
    assert.deepEqual([o.stateKept, o.freshState], [true, false]);
  }

  // A chatty one fits Claude Code's limit, and the whole output is there
  // to page through.
  const chatty = await ask("print(df.head(20000).to_string())");
  assert.equal(chatty.o.stdoutTruncated, true);
  assert.match(chatty.o.stdoutUri, /^sandbox:\/\/artifact\//);
  const page = await fopOk(s, { action: 'read', path: chatty.o.stdoutUri, length: 100 });
  assert.match(page.content, /date\s+region\s+product\s+units\s+price\s+revenue/);
});
