// Background processes in sessions (sandbox_process, docs/processes.md):
// a command that outlives its call, its output with offsets in a bounded
// ring, signal, wait and list; what a session's calls, pause, restart and
// destroy do to them; and the promises they must not break: a call's own
// daemons still die with the call, the session's limits hold.
import assert from 'node:assert/strict';
import { e2e, toolError } from './lib/server.mjs';
import { killServer, sessionContainer, sexecOk, sessionOk, withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };

function procCall(s, args, { requestTimeoutMs = 60_000, signal } = {}) {
  const opts = { timeout: requestTimeoutMs };
  if (signal) opts.signal = signal;
  return s.client.callTool({ name: 'sandbox_process', arguments: args }, undefined, opts);
}

async function proc(s, args, opts) {
  const r = await procCall(s, args, opts);
  assert.equal(r.isError ?? false, false, `sandbox_process ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, 'text mirrors structuredContent');
  return r.structuredContent;
}

async function procErr(s, args) {
  return toolError(await procCall(s, args));
}

// The command lines of the sandbox user's processes, seen from a call in
// the session (the image has no ps).
const PS = `
import os
out = []
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            c = open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\\0', b' ').decode().strip()
        except OSError:
            continue
        if c:
            out.append(c)
print('\\n'.join(sorted(out)))
`;

async function processes(s, session) {
  return (await sexecOk(s, session, PS)).stdout.split('\n');
}

// The counter every test here uses as a long-running process: one line
// every 50 ms, for as long as it is let.
const COUNTER = 'i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.05; done';

e2e('a background process: start, logs with offsets, wait, list, exit status', { timeoutMs: 90_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'bg' });

  const started = await proc(s, { action: 'start', session: 'bg', command: 'for i in 1 2 3; do echo line$i; done; echo oops >&2; exit 3' });
  const { pid } = started.process;
  assert.ok(Number.isInteger(pid) && pid > 1, `pid ${pid}`);
  assert.equal(started.process.command, 'for i in 1 2 3; do echo line$i; done; echo oops >&2; exit 3');

  const w = await proc(s, { action: 'wait', session: 'bg', pid });
  assert.equal(w.timedOut, false);
  assert.equal(w.process.state, 'exited');
  assert.equal(w.process.exitCode, 3);
  assert.ok(w.process.ended, 'an ended process says when');
  assert.equal(w.process.outputBytes, 23, 'stdout and stderr, every byte');

  // Its whole output, then from an offset: where the last read stopped.
  const all = await proc(s, { action: 'logs', session: 'bg', pid });
  assert.equal(all.output, 'line1\nline2\nline3\noops\n');
  assert.deepEqual([all.offset, all.nextOffset, all.more], [0, 23, false]);
  const part = await proc(s, { action: 'logs', session: 'bg', pid, offset: 6, max_bytes: 6 });
  assert.deepEqual([part.output, part.offset, part.nextOffset, part.more], ['line2\n', 6, 12, true]);
  const end = await proc(s, { action: 'logs', session: 'bg', pid, offset: 999 });
  assert.deepEqual([end.output, end.offset, end.nextOffset], ['', 23, 23], 'past the end: nothing, at the end');

  // A running one: its output arrives while it runs (Python's too, unbuffered),
  // a read from nextOffset gets only what is new, and wait with a short
  // timeout says it still runs.
  const py = await proc(s, {
    action: 'start',
    session: 'bg',
    command: 'python3 -c "import time\nfor i in range(1000):\n    print(\'py\', i); time.sleep(0.05)"',
  });
  const first = await waitFor(async () => {
    const l = await proc(s, { action: 'logs', session: 'bg', pid: py.process.pid });
    return l.output.includes('py 2\n') && l;
  }, { what: 'python output while it runs' });
  const next = await waitFor(async () => {
    const l = await proc(s, { action: 'logs', session: 'bg', pid: py.process.pid, offset: first.nextOffset });
    return l.output.length > 0 && l;
  }, { what: 'more python output' });
  assert.equal(next.offset, first.nextOffset);
  assert.match(next.output, /^py \d+\n/, 'a read from nextOffset starts where the last one ended');
  const still = await proc(s, { action: 'wait', session: 'bg', pid: py.process.pid, timeout: 100 });
  assert.equal(still.timedOut, true);
  assert.equal(still.process.state, 'running');

  const l = await proc(s, { action: 'list', session: 'bg' });
  assert.deepEqual(l.processes.map((p) => [p.pid, p.state]), [[pid, 'exited'], [py.process.pid, 'running']].sort((a, b) => a[0] - b[0]));

  // signal goes to the group; the process ends killed by it.
  const sent = await proc(s, { action: 'signal', session: 'bg', pid: py.process.pid, signal: 'TERM' });
  assert.equal(sent.sent, 'TERM');
  const killed = await proc(s, { action: 'wait', session: 'bg', pid: py.process.pid, timeout: 10_000 });
  assert.equal(killed.process.state, 'killed');
  assert.equal(killed.process.signal, 'TERM');

  // Bad input: clear, machine-readable, and the session keeps serving.
  assert.equal((await procErr(s, { action: 'logs', session: 'bg', pid: 4000000 })).code, 'process_not_found');
  assert.equal((await procErr(s, { action: 'wait', session: 'bg' })).code, 'invalid_arguments');
  assert.equal((await procErr(s, { action: 'start', session: 'bg', command: '' })).code, 'invalid_arguments');
  assert.equal((await procErr(s, { action: 'list', session: 'nope' })).code, 'session_not_found');
  const noSession = await procCall(s, { action: 'start', command: 'true' });
  assert.equal(noSession.isError, true, 'no session: refused by the schema, nothing started');
  assert.match(noSession.content[0].text, /session/);
  assert.equal((await sexecOk(s, 'bg', 'print(6*7)')).stdout, '42\n');
});

e2e('background processes outlive calls; a call\'s own daemons still die; limits hold', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_MAX_PROCESSES: '2', SANDBOX_SESSIONS_PROCESS_LOG_BYTES: '4096' });
  await sessionOk(s, { action: 'create', language: 'python', name: 'srv' });

  // A web server the model wrote, started in the background, reached from
  // the session's calls (inside the container: it has no network).
  await sexecOk(s, 'srv', "open('index.html', 'w').write('hello from the background')");
  const web = await proc(s, { action: 'start', session: 'srv', command: 'python3 -m http.server 8765 --bind 127.0.0.1' });
  const FETCH = `
import time, urllib.request
for i in range(200):
    try:
        print(urllib.request.urlopen('http://127.0.0.1:8765/index.html').read().decode()); break
    except OSError:
        time.sleep(0.05)
`;
  assert.equal((await sexecOk(s, 'srv', FETCH)).stdout, 'hello from the background\n');
  // The call's end (which kills everything the call started) left it, and what it started.
  const shell = await proc(s, { action: 'start', session: 'srv', command: 'sleep 4242 & sleep 4343 & wait' });
  await waitFor(async () => (await processes(s, 'srv')).filter((c) => /^sleep 4[23]4[23]$/.test(c)).length === 2, {
    what: 'the shell\'s two children',
  });
  // A call's own daemon, in a session of its own: it must still die with the call.
  await sexecOk(s, 'srv', "import subprocess\nsubprocess.Popen(['sleep', '4444'], start_new_session=True)\nprint('started')");
  const ps = await processes(s, 'srv');
  assert.ok(!ps.includes('sleep 4444'), `a call's daemon died with its call: ${ps.join(' | ')}`);
  assert.equal(ps.filter((c) => /^sleep 4[23]4[23]$/.test(c)).length, 2, `the background shell's children live: ${ps.join(' | ')}`);
  assert.equal((await sexecOk(s, 'srv', FETCH)).stdout, 'hello from the background\n', 'the server still answers');

  // At the session's limit (2 running), one more is refused; after one ends it is not.
  const over = await procErr(s, { action: 'start', session: 'srv', command: 'sleep 1' });
  assert.equal(over.code, 'max_processes');
  await proc(s, { action: 'signal', session: 'srv', pid: shell.process.pid, signal: 'KILL' });
  const gone = await proc(s, { action: 'wait', session: 'srv', pid: shell.process.pid, timeout: 10_000 });
  assert.equal(gone.process.state, 'killed');
  assert.equal(gone.process.signal, 'KILL');
  await waitFor(async () => !(await processes(s, 'srv')).some((c) => /^sleep 4[23]4[23]$/.test(c)), {
    what: 'the signal to reach the whole group',
  });

  // The ring keeps the last process_log_bytes (4096); what went before is counted.
  const flood = await proc(s, { action: 'start', session: 'srv', command: "head -c 20000 /dev/zero | tr '\\0' a; echo END" });
  const fw = await proc(s, { action: 'wait', session: 'srv', pid: flood.process.pid, timeout: 10_000 });
  assert.equal(fw.process.outputBytes, 20004);
  assert.equal(fw.process.outputFrom, 20004 - 4096);
  const fl = await proc(s, { action: 'logs', session: 'srv', pid: flood.process.pid, offset: 0, max_bytes: 65536 });
  assert.equal(fl.offset, 20004 - 4096);
  assert.equal(fl.dropped, 20004 - 4096);
  assert.equal(fl.output.length, 4096);
  assert.ok(fl.output.endsWith('aaaEND\n'));

  // A process that writes as fast as it can: a read of more than the ring
  // holds gets the ring's last bytes, never more, whatever came between.
  const yes = await proc(s, { action: 'start', session: 'srv', command: 'yes 0123456789' });
  for (let i = 0; i < 5; i++) {
    const l = await proc(s, { action: 'logs', session: 'srv', pid: yes.process.pid, max_bytes: 65536 });
    assert.ok(l.output.length <= 4096, `${l.output.length} bytes from a ring of 4096`);
    assert.ok(l.output.length === 0 || /^(\d*\n)?(0123456789\n)*\d*$/.test(l.output), 'the bytes are the process\'s');
    assert.ok(l.offset >= l.process.outputFrom, 'from a byte still kept');
  }
  await proc(s, { action: 'signal', session: 'srv', pid: yes.process.pid, signal: 'KILL' });

  // The web server went on through all of it.
  const list = await proc(s, { action: 'list', session: 'srv' });
  assert.equal(list.processes.find((p) => p.pid === web.process.pid).state, 'running');
});

e2e('background processes across pause, a server restart and destroy; waits and cancels', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'keep' });
  const c = await proc(s, { action: 'start', session: 'keep', command: COUNTER });
  const { pid } = c.process;
  await waitFor(async () => (await proc(s, { action: 'logs', session: 'keep', pid })).output.includes('tick 3\n'), {
    what: 'the counter to count',
  });

  // A wait does not hold up the session's calls.
  const waiting = procCall(s, { action: 'wait', session: 'keep', pid, timeout: 30_000 });
  assert.equal((await sexecOk(s, 'keep', 'print("beside")')).stdout, 'beside\n');
  // Cancelled, it ends at once; the session goes on.
  const ac = new AbortController();
  const cancelled = procCall(s, { action: 'wait', session: 'keep', pid, timeout: 30_000 }, { signal: ac.signal });
  ac.abort();
  await assert.rejects(cancelled, /abort/i);
  // Pause freezes the counter (and ends the wait that would hang); resume lets it go on.
  await sessionOk(s, { action: 'pause', name: 'keep' });
  assert.equal(toolError(await waiting).code, 'session_paused', 'the wait ended with the pause');
  assert.equal((await procErr(s, { action: 'list', session: 'keep' })).code, 'session_paused');
  await sessionOk(s, { action: 'resume', name: 'keep' });
  const before = (await proc(s, { action: 'list', session: 'keep' })).processes[0].outputBytes;
  await waitFor(async () => (await proc(s, { action: 'list', session: 'keep' })).processes[0].outputBytes > before, {
    what: 'the counter to go on after resume',
  });

  // A server killed outright: the next one finds the process running, and its output goes on.
  await killServer(s);
  const s2 = await st.start(PYTHON);
  const after = await waitFor(async () => {
    const r = await procCall(s2, { action: 'list', session: 'keep' });
    return !r.isError && r.structuredContent;
  }, { timeoutMs: 30_000, what: 'the session to be re-adopted' });
  assert.deepEqual(after.processes.map((p) => [p.pid, p.state]), [[pid, 'running']]);
  const n = after.processes[0].outputBytes;
  const more = await waitFor(async () => {
    const l = await proc(s2, { action: 'logs', session: 'keep', pid, offset: n });
    return l.output.length > 0 && l;
  }, { what: 'output after the restart' });
  assert.match(more.output, /tick \d+\n/);

  // Destroy ends it with the container.
  const container = await sessionContainer(st.dir, 'keep');
  assert.ok(container, 'the session has a container');
  await sessionOk(s2, { action: 'destroy', name: 'keep' });
  assert.equal((await procErr(s2, { action: 'list', session: 'keep' })).code, 'session_not_found');
});
