// The harness of the javascript/typescript session interpreter
// (images/node/repl.mjs, contract docs/session-interpreters.md): it plays
// the agent's part (requests on the interpreter's fd 0, replies on its fd
// 3, output on 1 and 2, all pipes; SIGINT to its process group) without
// the agent or the host. CI runs the checks in the node image
// (tests/repl/README.md).
//
//   node drive.mjs [--ts] [--repl FILE] CELL...   run cells, print results
//   node drive.mjs --check [js|ts] [--repl FILE]   the JS and/or TS checks
//   node drive.mjs --check js|ts -- CMD...         ... of the interpreter CMD
//   node drive.mjs --bench [--repl FILE]           start-up and round-trip times
//
// --check ends with "checks: N passed, M failed" and exits 1 if a check
// failed or none ran. FILE defaults to /opt/sbx/repl.mjs, started as the
// plugins do: node --no-force-async-hooks-checks FILE [--typescript]. A
// CELL argument may start with options in brackets:
//   '[stdin=TEXT]code'   the call's stdin (\n for newlines)
//   '[sigint=MS]code'    send SIGINT to the group MS ms after the request
// and '[sigint=MS]' alone sends a SIGINT while no call runs, after MS ms,
// and waits until the interpreter took it.
// Environment: SBX_REPL_CWD, the interpreter's directory (default /work;
// --check writes files there); SBX_REPL_NODE_FLAGS, node options to use
// instead of the plugins' (space-separated).
//
// Meant to run where the interpreter's runtime is: in the node image, as
// the agent starts it and as CI does (the tree's repl.mjs mounted over the
// image's), tests/repl/repl_test.sh javascript (or typescript).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class Interpreter {
	constructor(argv, { cwd = process.env.SBX_REPL_CWD || '/work' } = {}) {
		this.argv = argv;
		this.cwd = cwd;
		this.seq = 0;
		this.out = [];
		this.err = [];
		this.replies = '';
		this.waiter = null;
		this.exited = null;
	}

	// The agent gives the interpreter pipes (not the socket pairs of
	// child_process's 'pipe'), and the interpreter relies on that (it
	// reopens fds 0 and 3 through /proc), so these are FIFOs.
	start() {
		this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-drive-'));
		const fifo = (name) => {
			const p = path.join(this.dir, name);
			const r = spawnSync('mkfifo', ['-m', '0600', p]);
			if (r.status !== 0) throw new Error(`mkfifo ${p}: ${r.stderr}`);
			// Reader first (O_NONBLOCK: does not wait for a writer), then
			// the writer, which now has a reader.
			const rd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
			const wr = fs.openSync(p, fs.constants.O_WRONLY);
			fs.unlinkSync(p);
			return [rd, wr];
		};
		const [reqR, reqW] = fifo('req');
		const [outR, outW] = fifo('out');
		const [errR, errW] = fifo('err');
		const [repR, repW] = fifo('rep');
		const [cmd, ...args] = this.argv;
		this.child = spawn(cmd, args, {
			cwd: this.cwd,
			stdio: [reqR, outW, errW, repW],
			detached: true, // its own process group, as the agent's setsid
		});
		// The child has its ends; ours go.
		for (const fd of [reqR, outW, errW, repW]) fs.closeSync(fd);
		fs.rmdirSync(this.dir);
		this.requests = new net.Socket({ fd: reqW, readable: false, writable: true });
		this.requests.on('error', () => {});
		const reader = (fd, onData) => {
			const s = new net.Socket({ fd, readable: true, writable: false });
			s.on('data', onData);
			s.on('error', () => {});
			return s;
		};
		this.outFd = outR;
		this.errFd = errR;
		reader(outR, (d) => {
			this.out.push(d);
			this.armed?.check();
		});
		reader(errR, (d) => this.err.push(d));
		reader(repR, (d) => {
			this.replies += d.toString('latin1');
			this.checkReply();
		});
		this.child.on('exit', (code, signal) => {
			this.exited = { code, signal };
			if (this.waiter) this.waiter.reject(new Error(`interpreter exited (${code ?? signal}); stderr: ${Buffer.concat(this.err)}`));
		});
	}

	checkReply() {
		let nl;
		while ((nl = this.replies.indexOf('\n')) >= 0) {
			const line = this.replies.slice(0, nl);
			this.replies = this.replies.slice(nl + 1);
			const m = /^done (\d+) (-?\d+)$/.exec(line);
			if (m && this.waiter && Number(m[1]) === this.waiter.seq) {
				const w = this.waiter;
				this.waiter = null;
				// Everything written before the reply is in the pipes
				// already: take it now, as the agent does (repl_drain).
				this.drain(this.outFd, this.out);
				this.drain(this.errFd, this.err);
				w.resolve(Number(m[2]));
			}
		}
	}

	// Reads fd (non-blocking, shared with its net.Socket) until it is empty.
	drain(fd, sink) {
		const buf = Buffer.alloc(65536);
		for (;;) {
			let n;
			try {
				n = fs.readSync(fd, buf);
			} catch (e) {
				if (e.code === 'EAGAIN') return;
				throw e;
			}
			if (n === 0) return;
			sink.push(Buffer.from(buf.subarray(0, n)));
		}
	}

	// Runs one call; resolves to { status, stdout, stderr, ms }, rejects
	// when the interpreter dies or no reply comes within timeoutMs.
	// sigintWhen(stdout so far) is tested on every piece of output and
	// every millisecond until it holds; then SIGINT goes to the group.
	async run(code, { stdin = '', sigintAfterMs = null, sigintWhen = null, timeoutMs = 30000 } = {}) {
		if (this.exited) throw new Error('interpreter is not running');
		this.out = [];
		this.err = [];
		const seq = ++this.seq;
		const codeBuf = Buffer.from(code);
		const stdinBuf = Buffer.from(stdin);
		const t0 = process.hrtime.bigint();
		const reply = new Promise((resolve, reject) => {
			this.waiter = { seq, resolve, reject };
		});
		this.requests.write(Buffer.concat([
			Buffer.from(`run ${seq} ${codeBuf.length} ${stdinBuf.length}\n`), codeBuf, stdinBuf,
		]));
		const timers = [setTimeout(() => {
			const w = this.waiter;
			this.waiter = null;
			w?.reject(new Error(`no reply within ${timeoutMs} ms; stdout ${JSON.stringify(Buffer.concat(this.out).toString().slice(0, 2000))}`));
		}, timeoutMs)];
		if (sigintAfterMs !== null) timers.push(setTimeout(() => this.sigint(), sigintAfterMs));
		if (sigintWhen) {
			const armed = {
				check: () => {
					if (this.armed !== armed || !sigintWhen(Buffer.concat(this.out).toString())) return;
					this.armed = null;
					clearInterval(poll);
					this.sigint();
				},
			};
			const poll = setInterval(armed.check, 1);
			this.armed = armed;
			timers.push(poll);
		}
		let status;
		try {
			status = await reply;
		} finally {
			for (const t of timers) clearTimeout(t);
			this.armed = null;
		}
		const ms = Number(process.hrtime.bigint() - t0) / 1e6;
		return {
			status,
			stdout: Buffer.concat(this.out).toString(),
			stderr: Buffer.concat(this.err).toString(),
			ms,
		};
	}

	sigint() {
		try {
			process.kill(-this.child.pid, 'SIGINT');
		} catch {
			// gone already
		}
	}

	// What the interpreter is doing, from /proc (it is our child), so
	// that the checks wait for it to get somewhere instead of for the
	// clock. The main thread is blocked in the kernel (state S):
	sleeping() {
		try {
			const stat = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'latin1');
			return stat[stat.lastIndexOf(')') + 2] === 'S';
		} catch {
			return false;
		}
	}

	// Node's SIGINT watchdog is up outside any cell: the interpreter's
	// SIGINT worker (images/node/repl.mjs) waits in its breakOnSigint vm
	// call. Node runs a thread named SigintWatchdog exactly while some vm
	// call with breakOnSigint is active; before the worker's is, a SIGINT
	// outside a cell's synchronous part ends the interpreter.
	sigintReady() {
		const task = `/proc/${this.child.pid}/task`;
		let watchdog = false;
		let worker = false;
		try {
			for (const tid of fs.readdirSync(task)) {
				const stat = fs.readFileSync(`${task}/${tid}/stat`, 'latin1');
				const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
				if (comm === 'SigintWatchdog') watchdog = true;
				if (comm === 'WorkerThread' && stat[stat.lastIndexOf(')') + 2] === 'S') worker = true;
			}
		} catch {
			return false;
		}
		return watchdog && worker;
	}

	// A SIGINT was sent and no thread has taken it yet.
	sigintPending() {
		try {
			const status = fs.readFileSync(`/proc/${this.child.pid}/status`, 'latin1');
			return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) >> 1n) & 1n);
		} catch {
			return false;
		}
	}

	// The output written since the last call started (between calls it is
	// what the interpreter prints while idle).
	stderrSoFar() {
		return Buffer.concat(this.err).toString();
	}

	async close() {
		if (this.exited) return this.exited;
		const done = new Promise((r) => this.child.once('exit', () => r()));
		this.requests.end();
		const t = setTimeout(() => {
			try {
				process.kill(-this.child.pid, 'SIGKILL');
			} catch {
				// gone
			}
		}, 10000);
		await done;
		clearTimeout(t);
		return this.exited;
	}
}

function parseCell(arg) {
	const opts = {};
	let code = arg;
	let m;
	while ((m = /^\[(stdin|sigint)=([^\]]*)\]/.exec(code))) {
		if (m[1] === 'stdin') opts.stdin = m[2].replace(/\\n/g, '\n');
		else opts.sigintAfterMs = Number(m[2]);
		code = code.slice(m[0].length);
	}
	return { code, opts };
}

// The argv of the plugins' session_cmd; SBX_REPL_NODE_FLAGS replaces its
// node options (space-separated) to try others.
function argvFor(repl, ts) {
	const flags = (process.env.SBX_REPL_NODE_FLAGS ?? '--no-force-async-hooks-checks').split(' ').filter(Boolean);
	return ['node', ...flags, repl, ...(ts ? ['--typescript'] : [])];
}

async function runCells(repl, ts, cells) {
	const it = new Interpreter(argvFor(repl, ts));
	it.start();
	for (const arg of cells) {
		const { code, opts } = parseCell(arg);
		if (!code && opts.sigintAfterMs !== undefined) {
			await sleep(opts.sigintAfterMs);
			it.sigint();
			await waitFor(() => it.exited || (!it.sigintPending() && it.sleeping()), 'the SIGINT to be taken');
			console.log(`--- idle SIGINT; interpreter ${it.exited ? `exited ${JSON.stringify(it.exited)}` : 'alive'}`);
			continue;
		}
		const r = await it.run(code, opts);
		console.log(`--- ${JSON.stringify(code)} -> status ${r.status} (${r.ms.toFixed(2)} ms)`);
		if (r.stdout) process.stdout.write(`[stdout]\n${r.stdout}`);
		if (r.stderr) process.stdout.write(`[stderr]\n${r.stderr}`);
	}
	await it.close();
}

// Polls cond() every millisecond until it holds; rejects naming what was
// awaited after timeoutMs.
async function waitFor(cond, what, timeoutMs = 30000) {
	const deadline = Date.now() + timeoutMs;
	while (!cond()) {
		if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
		await sleep(1);
	}
}

// ------------------------------------------------------------- checks ---

let passes = 0;
let failures = 0;
function check(name, ok, detail) {
	if (ok) {
		passes++;
		console.log(`ok   ${name}`);
	} else {
		failures++;
		console.log(`FAIL ${name}\n${detail}`);
	}
}

// A check that waits for the interpreter to get somewhere.
async function reach(name, cond, what) {
	try {
		await waitFor(cond, what);
		check(name, true);
	} catch (e) {
		check(name, false, `  ${e.message}`);
	}
}

// sigintWhen conditions, all after the interpreter's SIGINT worker is up
// (Interpreter.sigintReady). The cell printed marker (so it is in its
// loop; loops write it with fs.writeSync, outside Node's streams, so the
// SIGINT cannot land inside a console.log's bookkeeping):
const printed = (it, marker) => (stdout) => stdout.includes(marker) && it.sigintReady();
// ... and then its main thread blocked in the kernel (waiting for a timer):
const blockedAfter = (it, marker) => (stdout) => stdout.includes(marker) && it.sleeping() && it.sigintReady();
// No SIGINT pending and the main thread blocked again: a SIGINT sent
// while idle was taken.
const idle = (it) => () => !it.sigintPending() && it.sleeping();

async function expect(it, name, code, want, opts = {}) {
	let r;
	try {
		r = await it.run(code, opts);
	} catch (e) {
		check(name, false, `  ${e.message}`);
		return null;
	}
	const problems = [];
	if (want.status !== undefined && r.status !== want.status) problems.push(`status ${r.status}, want ${want.status}`);
	for (const [stream, pattern] of [['stdout', want.stdout], ['stderr', want.stderr]]) {
		if (pattern === undefined) continue;
		const ok = pattern instanceof RegExp ? pattern.test(r[stream]) : r[stream] === pattern;
		if (!ok) problems.push(`${stream} ${JSON.stringify(r[stream])}, want ${pattern}`);
	}
	check(name, !problems.length, `  code: ${JSON.stringify(code)}\n  ${problems.join('\n  ')}\n  stdout: ${JSON.stringify(r.stdout)}\n  stderr: ${JSON.stringify(r.stderr)}`);
	return r;
}

async function checkJs(argv) {
	const it = new Interpreter(argv);
	it.start();
	await expect(it, 'let', 'let x = 1', { status: 0, stdout: '', stderr: '' });
	await expect(it, 'x++ shows the old value', 'x++', { status: 0, stdout: '1\n' });
	await expect(it, 'x persists', 'x', { status: 0, stdout: '2\n' });
	await expect(it, 'const', 'const y = 1', { status: 0, stdout: '' });
	await expect(it, 'const again', 'const y = 1', { status: 0, stdout: '', stderr: '' });
	await expect(it, 'function and class', 'function f(a) { return a * 2 }\nclass C { get v() { return 7 } }', { status: 0 });
	await expect(it, 'function and class persist', 'f(new C().v)', { status: 0, stdout: '14\n' });
	await expect(it, 'var', 'var v = "s"; v', { status: 0, stdout: "'s'\n" });
	await expect(it, 'static import', "import fs from 'node:fs'", { status: 0, stdout: '', stderr: '' });
	await expect(it, 'import persists', "fs.existsSync('/work')", { status: 0, stdout: 'true\n' });
	await expect(it, 'import forms',
		"import { join as j, sep } from 'node:path'; import * as os from 'node:os'\nimport 'node:util';\nimport def, { readFileSync } from 'node:fs';\n[j('a', 'b'), sep, typeof os.cpus, typeof def.statSync, typeof readFileSync]",
		{ status: 0, stdout: "[ 'a/b', '/', 'function', 'function', 'function' ]\n" });
	await expect(it, 'dynamic import', "const { EOL } = await import('node:os'); JSON.stringify(EOL)", { status: 0, stdout: `'"\\\\n"'\n` });
	await expect(it, 'import in a function', "async function load(m) { return import(m) }\n(await load('node:path')).basename('/a/b')", { status: 0, stdout: "'b'\n" });
	await expect(it, "'import' in strings, comments, regexps and properties",
		"const o = { import: 1 }, o2 = { async import(x) { return x } }; // import x from 'y'\n/* import z from 'w' */ const s = 'import a from \"b\"' + `${'import(1)'}`; const r = /import(x)/; class K { static import() { return 3 } }\n[o.import, await o2.import(2), s.length, r.source, K.import()]",
		{ status: 0, stdout: "[ 1, 2, 26, 'import(x)', 3 ]\n" });
	await expect(it, 'modules of /work: relative, bare, JSON with attributes',
		"const fs2 = require('node:fs'); fs2.mkdirSync('node_modules/pkg', { recursive: true }); fs2.writeFileSync('node_modules/pkg/package.json', '{\"name\":\"pkg\",\"type\":\"module\",\"exports\":\"./i.js\"}'); fs2.writeFileSync('node_modules/pkg/i.js', 'export default 40; export const two = 2'); fs2.writeFileSync('rel.mjs', 'export const rel = 1'); fs2.writeFileSync('data.json', '{\"d\": 3}')",
		{ status: 0, stdout: '', stderr: '' });
	await expect(it, 'imports resolve from /work',
		"import answer, { two } from 'pkg'\nimport { rel } from './rel.mjs'\nimport data from './data.json' with { type: 'json' }\n[answer + two, rel, data.d, require('pkg').default]",
		{ status: 0, stdout: '[ 42, 1, 3, 40 ]\n' });
	await expect(it, 'import of a missing package', "import nope from 'nope'", { status: 1, stderr: /^Uncaught Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'nope' imported from \/work\/\n/ });
	await expect(it, 'export default dropped', 'export default 6 * 7', { status: 0, stdout: '42\n' });
	await expect(it, 'export default object', 'export default { a: 1, b: 2 }', { status: 0, stdout: '{ a: 1, b: 2 }\n' });
	await expect(it, 'export default function', 'export default function dflt() { return 5 }\ndflt()', { status: 0, stdout: '5\n' });
	await expect(it, 'export dropped', 'export const e1 = 5; export function ef() { return e1 }\nef()', { status: 0, stdout: '5\n' });
	await expect(it, 'require', "const { join } = require('node:path'); join('a', 'b')", { status: 0, stdout: "'a/b'\n" });
	await expect(it, 'top-level await', 'const t = await new Promise((r) => setTimeout(() => r(42), 20)); t', { status: 0, stdout: '42\n' });
	await expect(it, 'console output', "console.log('out'); console.error('err'); void process.stdout.write('w\\n')", { status: 0, stdout: 'out\nw\n', stderr: 'err\n' });
	await expect(it, 'a megabyte of output, all before the reply', "process.stdout.write('x'.repeat(1 << 20)); undefined", { status: 0, stdout: /^x{1048576}$/ });
	await expect(it, 'completion object', '({ a: 1, b: [1, 2] })', { status: 0, stdout: '{ a: 1, b: [ 1, 2 ] }\n' });
	await expect(it, 'thrown error', "function boom() { throw new Error('boom') }\nboom()", { status: 1, stdout: '', stderr: /^Uncaught Error: boom\n {4}at boom \(cell-\d+:1:25\)\n {4}at cell-\d+:2:1\n$/ });
	await expect(it, 'state kept after an error', 'x', { status: 0, stdout: '2\n' });
	await expect(it, 'async error', "await null; throw new TypeError('late')", { status: 1, stderr: /^Uncaught TypeError: late\n {4}at cell-/ });
	await expect(it, 'error with a cause: no interpreter frames', "throw new Error('outer', { cause: new TypeError('inner') })", { status: 1, stderr: /^Uncaught Error: outer\n {4}at cell-\d+:1:7 \{\n {2}\[cause\]: TypeError: inner\n {6}at cell-\d+:1:35\n\}\n$/ });
	await expect(it, 'thrown non-error', "throw 'str'", { status: 1, stderr: "Uncaught 'str'\n" });
	await expect(it, 'syntax error after an import shows the line as written', "import 'node:os'\nlet q2 = ;", { status: 1, stderr: /^cell-\d+:2\nlet q2 = ;\n {9}\^\n\nUncaught SyntaxError: Unexpected token ';'\n$/ });
	await expect(it, 'syntax error', 'let q = ;', { status: 1, stderr: /^cell-\d+:1\nlet q = ;\n {8}\^\n\nUncaught SyntaxError: Unexpected token ';'/ });
	await expect(it, 'error in a callback during the cell', "setTimeout(() => { throw new RangeError('cb') }, 5); await new Promise((r) => setTimeout(r, 200)); 'not reached'",
		{ status: 1, stdout: '', stderr: /^Uncaught RangeError: cb\n/ });
	await expect(it, 'unhandled rejection during the cell', "Promise.reject(new Error('rej')); await new Promise((r) => setTimeout(r, 100))",
		{ status: 1, stderr: /^Uncaught \(in promise\) Error: rej\n/ });
	await expect(it, 'rejected promise as the value', 'Promise.reject(7)', { status: 0, stdout: 'Promise { <rejected> 7 }\n' });
	// Errors after a cell are printed whenever they happen, during the call
	// or after it; wait for them so that they do not land in a later call.
	await reach('... its rejection printed', () => it.stderrSoFar().includes('Uncaught (in promise) 7\n'), 'Uncaught (in promise) 7');
	await expect(it, 'errors after the cell do not kill', "setTimeout(() => { throw new Error('later') }, 10); setTimeout(() => Promise.reject(new Error('later2')), 10); 'scheduled'", { status: 0, stdout: "'scheduled'\n" });
	await reach('... and are printed', () => /^Uncaught Error: later\n[^]*^Uncaught \(in promise\) Error: later2\n/m.test(it.stderrSoFar()), 'both late errors on stderr');
	await expect(it, 'alive after late errors', 'x + 1', { status: 0, stdout: '3\n', stderr: '' });
	await expect(it, 'stdin as process.stdin', "let input = ''; for await (const c of process.stdin) input += c; input", { status: 0, stdout: "'hello\\nworld\\n'\n" }, { stdin: 'hello\nworld\n' });
	await expect(it, 'stdin as fd 0', "require('node:fs').readFileSync(0, 'utf8') + require('node:fs').readFileSync('/dev/stdin', 'utf8')", { status: 0, stdout: "'abcabc'\n" }, { stdin: 'abc' });
	await expect(it, 'stdin of a child', "require('node:child_process').execSync('cat', { stdio: ['inherit', 'pipe', 'pipe'] }).toString()", { status: 0, stdout: "'kid'\n" }, { stdin: 'kid' });
	await expect(it, 'no stdin: empty, fd 0 is /dev/null', "let n = 0; for await (const c of process.stdin) n += c.length; [n, require('node:fs').readFileSync(0).length, require('node:fs').readlinkSync('/proc/self/fd/0')]", { status: 0, stdout: "[ 0, 0, '/dev/null' ]\n" });
	await expect(it, 'control fds hidden', "require('node:child_process').execSync('ls /proc/self/fd', { stdio: ['inherit', 'pipe', 'pipe'] }).toString().split('\\n').filter(Boolean).map(Number).filter((fd) => fd > 2).length", { status: 0, stdout: '1\n' });
	await expect(it, 'fd 3 closed', "(() => { try { require('node:fs').fstatSync(3); return 'open' } catch (e) { return e.code } })()", { status: 0, stdout: /^'(EBADF|open)'\n$/ });
	await expect(it, 'process.exit()', 'process.exit()', { status: 0, stdout: '', stderr: '' });
	await expect(it, 'process.exit(3)', "console.log('before'); process.exit(3); console.log('after')", { status: 3, stdout: 'before\n', stderr: '' });
	await expect(it, 'process.exit() in a callback', 'setTimeout(() => process.exit(4), 10); await new Promise((r) => setTimeout(r, 5000))', { status: 4 });
	await expect(it, 'state kept after exit', 'x', { status: 0, stdout: '2\n' });
	// Each SIGINT goes out once the cell is where the check means it to
	// land (its marker printed; for an await, the main thread blocked).
	await expect(it, 'SIGINT during an await', "console.log('waiting'); await new Promise((r) => setTimeout(r, 60000))", { status: 130, stdout: 'waiting\n', stderr: /Interrupted/ }, { sigintWhen: blockedAfter(it, 'waiting\n') });
	await expect(it, 'state kept after SIGINT', 'x', { status: 0, stdout: '2\n', stderr: '' });
	await expect(it, 'SIGINT in a synchronous loop', "let spins = 0; while (true) { if (++spins === 1000) require('node:fs').writeSync(1, 'spinning\\n') }", { status: 130, stdout: 'spinning\n', stderr: /Interrupted/ }, { sigintWhen: printed(it, 'spinning\n') });
	await expect(it, 'state kept after a sync interrupt', 'spins > 0 && x === 2', { status: 0, stdout: 'true\n', stderr: '' });
	await expect(it, 'SIGINT in a loop after an await', "import { writeSync } from 'node:fs'; let spins2 = 0; for (;;) if (++spins2 === 1000) writeSync(1, 'spinning\\n')", { status: 130, stdout: 'spinning\n', stderr: /Interrupted/ }, { sigintWhen: printed(it, 'spinning\n') });
	await expect(it, 'state kept after an async-loop interrupt', 'spins2 > 0 && x === 2', { status: 0, stdout: 'true\n', stderr: '' });
	await expect(it, 'SIGINT in a loop in a timer during the cell', "setTimeout(() => { require('node:fs').writeSync(1, 'spinning\\n'); for (;;); }, 10); await new Promise((r) => setTimeout(r, 60000))", { status: 130, stdout: 'spinning\n', stderr: /Interrupted/ }, { sigintWhen: printed(it, 'spinning\n') });
	await expect(it, 'timers and promises work after that', "await new Promise((r) => setTimeout(r, 10)); await Promise.all([1, Promise.resolve(2)])", { status: 0, stdout: '[ 1, 2 ]\n' });
	await reach('idle before the SIGINT', () => idle(it)() && it.sigintReady(), 'the interpreter to wait for a request, its SIGINT worker up');
	it.sigint();
	await reach('idle SIGINT taken', () => it.exited || idle(it)(), 'the SIGINT to be taken');
	check('SIGINT while idle is ignored', !it.exited, `  exited: ${JSON.stringify(it.exited)}`);
	await expect(it, 'alive after the idle SIGINT', 'x', { status: 0, stdout: '2\n', stderr: '' });
	await expect(it, 'globals: require only', "Object.keys(globalThis).filter((k) => !['global', 'clearImmediate', 'setImmediate', 'clearInterval', 'clearTimeout', 'setInterval', 'setTimeout', 'queueMicrotask', 'structuredClone', 'atob', 'btoa', 'performance', 'fetch', 'crypto', 'navigator', 'v', 'f', 'load', 'ef', 'boom', 'dflt'].includes(k))", { status: 0, stdout: "[ 'require' ]\n" });
	await expect(it, 'argv', 'process.argv.length', { status: 0, stdout: '2\n' });
	const exit = await it.close();
	check('exits 0 at the end of requests', exit.code === 0, `  ${JSON.stringify(exit)}`);
}

async function checkTs(argv) {
	const it = new Interpreter(argv);
	it.start();
	await expect(it, 'ts: types and enum', 'const n: number = 5; enum E { A, B }', { status: 0, stdout: '', stderr: '' });
	await expect(it, 'ts: they persist', 'n + E.B', { status: 0, stdout: '6\n' });
	await expect(it, 'ts: const again', 'const n: number = 6; n', { status: 0, stdout: '6\n' });
	await expect(it, 'ts: interface, generics, as', 'interface P { x: number }\nfunction id<T>(v: T): T { return v }\nconst p = id<P>({ x: 1 }) as P; p.x', { status: 0, stdout: '1\n' });
	await expect(it, 'ts: import type dropped', "import type { Stats } from 'node:fs';\nimport { type Dirent, existsSync } from 'node:fs';\nconst st: Stats | null = null; existsSync('/work')", { status: 0, stdout: 'true\n' });
	await expect(it, 'ts: namespace', 'namespace NS { export const k = 3 }\nNS.k', { status: 0, stdout: '3\n' });
	await expect(it, 'ts: class with parameter properties', 'class Pt { constructor(public x: number, private y = 2) {} sum() { return this.x + this.y } }\nnew Pt(1).sum()', { status: 0, stdout: '3\n' });
	await expect(it, 'ts: error line numbers kept', "type T = {\n  a: string\n}\nthrow new Error('ts boom')", { status: 1, stderr: /^Uncaught Error: ts boom\n {4}at cell-\d+:4:7/ });
	await expect(it, 'ts: syntax error', 'const ok: number = 1;\nlet z: = 1', { status: 1, stderr: /^cell-\d+:2\nconst ok: number = 1;\nlet z: = 1\n {7}\^\n\nUncaught SyntaxError \[ERR_INVALID_TYPESCRIPT_SYNTAX\]: Unexpected token `=`/ });
	await expect(it, 'ts: error found by V8 shows the TS line', 'const t1: number = 1;\nlet t1: string = "";', { status: 1, stderr: /^cell-\d+:2\nlet t1: string = "";\n {4}\^\n\nUncaught SyntaxError: Identifier 't1' has already been declared\n$/ });
	await expect(it, 'ts: top-level await', 'const w: number = await Promise.resolve(9); w', { status: 0, stdout: '9\n' });
	await expect(it, 'ts: no warnings', '1', { status: 0, stdout: '1\n', stderr: '' });
	await expect(it, 'ts: static import', "import { basename } from 'node:path';\nconst b: string = basename('/x/y.ts'); b", { status: 0, stdout: "'y.ts'\n" });
	await expect(it, 'ts: SIGINT during an await', "console.log('waiting'); await new Promise<void>((r) => setTimeout(r, 60000))", { status: 130, stdout: 'waiting\n' }, { sigintWhen: blockedAfter(it, 'waiting\n') });
	await expect(it, 'ts: state kept', 'n', { status: 0, stdout: '6\n' });
	await it.close();
}

// -------------------------------------------------------------- bench ---

function stats(xs) {
	const s = [...xs].sort((a, b) => a - b);
	const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
	return `median ${q(0.5).toFixed(3)} ms, p90 ${q(0.9).toFixed(3)} ms, min ${s[0].toFixed(3)} ms`;
}

async function bench(repl) {
	for (const ts of [false, true]) {
		const starts = [];
		const firsts = [];
		for (let k = 0; k < 7; k++) {
			const t0 = process.hrtime.bigint();
			const it = new Interpreter(argvFor(repl, ts));
			it.start();
			const r = await it.run('1');
			starts.push(Number(process.hrtime.bigint() - t0) / 1e6);
			firsts.push(r.ms);
			await it.close();
		}
		console.log(`${ts ? 'ts' : 'js'}: start-up to the first reply: ${stats(starts)}`);
		const it = new Interpreter(argvFor(repl, ts));
		it.start();
		await it.run('let x = 0');
		const rt = [];
		for (let k = 0; k < 2000; k++) rt.push((await it.run('x++')).ms);
		console.log(`${ts ? 'ts' : 'js'}: round trip of x++ (2000 calls): ${stats(rt.slice(200))}`);
		const r = await it.run('x');
		console.log(`${ts ? 'ts' : 'js'}: x = ${r.stdout.trim()}`);
		await it.close();
	}
}

// --------------------------------------------------------------- main ---

const args = process.argv.slice(2);
const main = process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url));
let repl = '/opt/sbx/repl.mjs';
let ts = false;
let mode = 'cells';
let sets = ['js', 'ts'];
let argv = null;
const cells = [];
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	if (a === '--repl') repl = args[++i];
	else if (a === '--ts') ts = true;
	else if (a === '--check') {
		mode = 'check';
		if (args[i + 1] === 'js' || args[i + 1] === 'ts') sets = [args[++i]];
	} else if (a === '--bench') mode = 'bench';
	else if (a === '--') {
		argv = args.slice(i + 1);
		break;
	} else cells.push(a);
}
if (!main) {
	// imported: the classes and helpers only
} else if (mode === 'check') {
	if (argv && sets.length !== 1) {
		console.error('drive.mjs: -- CMD... needs --check js or --check ts');
		process.exit(2);
	}
	if (sets.includes('js')) await checkJs(argv ?? argvFor(repl, false));
	if (sets.includes('ts')) await checkTs(argv ?? argvFor(repl, true));
	console.log(`checks: ${passes} passed, ${failures} failed`);
	process.exitCode = failures || !passes ? 1 : 0;
} else if (mode === 'bench') {
	await bench(repl);
} else {
	await runCells(repl, ts, cells);
}
