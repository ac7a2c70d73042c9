// The plain python runtime's libraries (issue 3, item 6): present, quiet,
// and not slowing down code that does not use them.
import assert from 'node:assert/strict';
import { e2e } from './lib/server.mjs';
import { createSession, sexec, sexecOk, withStateDir } from './lib/sessions.mjs';

const ENV = { SANDBOX_BASH_POOL_SIZE: '0' };

e2e('python has numpy, pandas, scipy, openpyxl and reportlab', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: ENV });
  const code = `
import numpy as np, pandas as pd, scipy.stats, openpyxl, reportlab
df = pd.DataFrame({"x": np.arange(5), "y": np.arange(5) ** 2})
print(int(df.y.sum()), round(float(scipy.stats.pearsonr(df.x, df.y)[0]), 3))
wb = openpyxl.Workbook(); wb.active["A1"] = 42; wb.save("/work/t.xlsx")
print(openpyxl.load_workbook("/work/t.xlsx").active["A1"].value)
`;
  const r = await s.execute('python', code);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, '30 0.959\n42\n');
  assert.equal(r.stderr, '');
});

e2e('matplotlib saves a PNG with no warnings and without rebuilding its font cache', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: ENV });
  const code = `
import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [1, 4, 9]); plt.title("squares")
plt.savefig("/work/plot.png")
data = open("/work/plot.png", "rb").read()
print(data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(data) > 1000)
`;
  const r = await s.execute('python', code);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, 'True True\n');
  // Building the font list would say so on stderr ("Matplotlib is building
  // the font cache"): the prebuilt one is copied.
  assert.equal(r.stderr, '', 'no warnings (font cache, config dir, backend)');
});

e2e('a module only python-ml has gets a hint in the result, one-off and in a session; others do not', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env(ENV) });
  const hint = (m) => `${m} is in the python-ml runtime, not in python: create the session with ml: true, or pass ml: true for a one-off run (or language python-ml)`;
  // The JSON text is what Claude Code shows: the hint is there.
  for (const [code, m] of [['import sklearn', 'sklearn'], ['import seaborn as sns', 'seaborn'], ['from torch import nn', 'torch'], ['import numpy\nimport sklearn.linear_model', 'sklearn']]) {
    const r = await s.execute('python', code);
    assert.equal(r.exitCode, 1);
    assert.match(r.stderr, new RegExp(`ModuleNotFoundError: No module named '${m}'`));
    assert.equal(r.hint, hint(m), code);
  }
  await createSession(s, 'python', { name: 'plain' });
  const cell = await sexec(s, 'plain', 'x = 1\nimport seaborn');
  assert.equal(cell.hint, hint('seaborn'));
  assert.equal((await sexecOk(s, 'plain', 'print(x)')).hint, undefined, 'a later call that succeeds has none');
  // A module python-ml has not either, a missing submodule of one python
  // has, a program that prints the words itself and succeeds: no hint.
  for (const code of ['import requests', 'import numpy.nothing', 'import sys\nprint("ModuleNotFoundError: No module named \'torch\'", file=sys.stderr)']) {
    const r = await s.execute('python', code);
    assert.ok(r.stderr.length > 0);
    assert.equal(r.hint, undefined, code);
  }
});
