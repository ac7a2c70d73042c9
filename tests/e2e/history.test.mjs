// A session's history as a Jupyter notebook (sandbox_session export,
// docs/sessions.md "History and notebooks"): every call a cell, in order,
// with its output, its images and how it ended, validated by nbformat's
// own validator (Debian's python3-nbformat).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { e2e, IN_CI } from './lib/server.mjs';
import { sessionErr, sessionOk, sexec, withStateDir } from './lib/sessions.mjs';
import { fopOk } from './lib/files.mjs';

const run = promisify(execFile);
const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };

// A red 4x4 PNG, written by the cell itself.
const PNG = `
import struct, zlib
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(4))
open('red.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
print('drew')`;

async function validate(h, file) {
  // Debian's python3, where python3-nbformat is (a pyenv python may come first on PATH).
  try {
    await run('/usr/bin/python3', ['-c', 'import nbformat']);
  } catch {
    assert.ok(!IN_CI, 'python3-nbformat is missing (scripts/test.sh installs it)');
    h.t.diagnostic('python3-nbformat is missing: the notebook is not validated');
    return;
  }
  const { stdout } = await run('/usr/bin/python3', ['-c', `
import nbformat, sys
nb = nbformat.read(sys.argv[1], as_version=4)
nbformat.validate(nb)
print(nb.nbformat, nb.nbformat_minor, len(nb.cells))`, file]);
  return stdout.trim();
}

e2e('a python session exported as a notebook: cells in order, outputs, images, errors; nbformat validates it', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'nb' });
  await sexec(s, 'nb', 'x = 6 * 7\nprint("x is", x)');
  await sexec(s, 'nb', 'import sys\nprint("to stderr", file=sys.stderr)\nx + 1');
  await sexec(s, 'nb', PNG);
  await sexec(s, 'nb', 'raise ValueError("on purpose")');
  await sexec(s, 'nb', 'print("ünïcode ✓")');

  const r = await sessionOk(s, { action: 'export', name: 'nb', format: 'ipynb' });
  assert.equal(r.exported.format, 'ipynb');
  assert.equal(r.exported.cells, 5);
  assert.equal(r.exported.droppedCells, 0);
  assert.match(r.exported.uri, /^sandbox:\/\/artifact\/[0-9a-f]{16}\/nb\.ipynb$/);
  // Read back like any artifact, in pieces if it must.
  let text = '';
  for (let offset = 0; ; ) {
    const page = await fopOk(s, { action: 'read', path: r.exported.uri, offset });
    text += page.content;
    offset += Buffer.byteLength(page.content);
    if (page.eof) break;
  }
  assert.equal(Buffer.byteLength(text), r.exported.bytes);
  const nb = JSON.parse(text);
  assert.deepEqual([nb.nbformat, nb.nbformat_minor], [4, 5]);
  assert.deepEqual(nb.metadata.kernelspec, { name: 'python3', display_name: 'Python 3', language: 'python' });
  assert.equal(nb.metadata.mcp_sandbox.session, 'nb');
  assert.deepEqual(nb.cells.map((c) => c.execution_count), [1, 2, 3, 4, 5]);
  assert.equal(new Set(nb.cells.map((c) => c.id)).size, 5, 'cell ids are unique');
  assert.equal(nb.cells[0].source, 'x = 6 * 7\nprint("x is", x)');
  assert.deepEqual(nb.cells[0].outputs, [{ output_type: 'stream', name: 'stdout', text: 'x is 42\n' }]);
  const [out1, err1] = nb.cells[1].outputs;
  assert.equal(out1.text, '43\n', 'the trailing expression, as the interpreter showed it');
  assert.deepEqual([err1.name, err1.text], ['stderr', 'to stderr\n']);
  const img = nb.cells[2].outputs.find((o) => o.output_type === 'display_data');
  assert.ok(img, `an image output: ${JSON.stringify(nb.cells[2].outputs)}`);
  assert.equal(Buffer.from(img.data['image/png'], 'base64').subarray(1, 4).toString(), 'PNG');
  const failed = nb.cells[3].outputs;
  assert.match(failed.find((o) => o.name === 'stderr').text, /ValueError: on purpose/);
  assert.equal(failed.find((o) => o.output_type === 'error')?.ename, 'ExitStatus');
  assert.equal(nb.cells[4].outputs[0].text, 'ünïcode ✓\n');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-nb-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'nb.ipynb'), text);
  const v = await validate(h, path.join(dir, 'nb.ipynb'));
  if (v) assert.equal(v, '4 5 5');

  // A new session from the exported notebook: its cells run in order,
  // up to the one that fails; what they made is there.
  const again = await sessionOk(s, { action: 'create', language: 'python', name: 'nb2', from_notebook: r.exported.uri });
  assert.equal(again.session.name, 'nb2');
  assert.deepEqual([again.fromNotebook.cells, again.fromNotebook.ran], [5, 3]);
  assert.equal(again.fromNotebook.failed.cell, 4);
  assert.equal(again.fromNotebook.failed.exitCode, 1);
  assert.match(again.fromNotebook.failed.stderr, /ValueError: on purpose/);
  assert.equal((await sexec(s, 'nb2', 'print(x)')).stdout, '42\n');
  // From the notebook's text: markdown cells are skipped, a list source is joined.
  const text2 = JSON.stringify({
    nbformat: 4, nbformat_minor: 5, metadata: {},
    cells: [
      { cell_type: 'markdown', id: 'm', metadata: {}, source: '# title' },
      { cell_type: 'code', id: 'a', metadata: {}, execution_count: null, outputs: [], source: ['y = 1\n', 'y += 1\n'] },
      { cell_type: 'code', id: 'b', metadata: {}, execution_count: null, outputs: [], source: 'print(y * 10)' },
    ],
  });
  const fromText = await sessionOk(s, { action: 'create', language: 'python', name: 'nb3', from_notebook: text2 });
  assert.deepEqual([fromText.fromNotebook.cells, fromText.fromNotebook.ran, fromText.fromNotebook.failed], [2, 2, undefined]);
  assert.equal((await sexec(s, 'nb3', 'print(y)')).stdout, '2\n');
  const notNb = await sessionErr(s, { action: 'create', language: 'python', name: 'nb4', from_notebook: '{"cells": 3}' });
  assert.equal(notNb.code, 'invalid_arguments');
  assert.match(notNb.message, /not a Jupyter notebook/);

  // Bad input: no such session, another format.
  assert.equal((await sessionErr(s, { action: 'export', name: 'nope' })).code, 'session_not_found');
  const other = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'export', name: 'nb', format: 'pdf' } });
  assert.equal(other.isError, true);
});

e2e('a bash session\'s notebook names the bash kernel; an empty session exports an empty notebook', { timeoutMs: 90_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_PYTHON_POOL_SIZE: '0' });
  await sessionOk(s, { action: 'create', language: 'bash', name: 'sh' });
  const empty = await sessionOk(s, { action: 'export', name: 'sh' });
  assert.equal(empty.exported.cells, 0);
  await sexec(s, 'sh', 'echo hi; exit 3');
  const r = await sessionOk(s, { action: 'export', name: 'sh' });
  const nb = JSON.parse((await fopOk(s, { action: 'read', path: r.exported.uri })).content);
  assert.deepEqual(nb.metadata.kernelspec, { name: 'bash', display_name: 'Bash', language: 'bash' });
  assert.equal(nb.cells.length, 1);
  assert.equal(nb.cells[0].outputs[0].text, 'hi\n');
  assert.deepEqual(nb.cells[0].outputs.at(-1), { output_type: 'error', ename: 'ExitStatus', evalue: 'exited with status 3', traceback: ['exited with status 3'] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-nb-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'sh.ipynb'), JSON.stringify(nb));
  const v = await validate(h, path.join(dir, 'sh.ipynb'));
  if (v) assert.equal(v, '4 5 1');
});
