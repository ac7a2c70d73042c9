// The session interpreter of the javascript and typescript plugins: one
// long-lived Node process per session that runs each call's code (a
// "cell") in one persistent global scope. docs/session-interpreters.md is
// the contract with the agent (agent/repl.c): fd 0 carries requests
// "run <seq> <code_len> <stdin_len>[ <paths_len>]\n<code><stdin>[<paths>]",
// fd 3 the replies
// "done <seq> <status>\n", fds 1 and 2 every call's output. Installed in
// the node image as /opt/sbx/repl.mjs and started as
//
//   node --no-force-async-hooks-checks /opt/sbx/repl.mjs                javascript
//   node --no-force-async-hooks-checks /opt/sbx/repl.mjs --typescript   typescript
//
// (the option: see Interrupts; without it everything works but stopping a
// busy timer or I/O callback crashes Node instead).
//
// How a cell runs:
//
// - Through the in-process inspector: Runtime.evaluate with replMode, the
//   mode of the DevTools console. Top-level let/const/class/function/var
//   persist between cells, top-level await works, and a cell may declare
//   again a name it declared before with the same keyword (users re-run
//   cells: `const x = 1` twice is fine; `const x` then `let x` is not, as
//   in the console). The completion value is shown with util.inspect
//   unless it is undefined, as the node REPL does. Cells are sloppy-mode
//   scripts, as in the node REPL (a one-shot run is a strict ES module).
// - Module syntax, which a script may not contain: a small scanner rewrites
//   a top-level `import x, { y as z } from 'm'` into
//   `const { default: x, y: z } = await import('m');` (and the other
//   forms, import attributes included) in place, so imports run where they
//   stand rather than first, and named imports are snapshots, not live
//   bindings; `export` before a declaration and `export default` are
//   dropped (`export {...}` and re-exports are not supported). Code compiled by the inspector has no module referrer, so
//   Node refuses its import() ("A dynamic import callback was not
//   specified"): each import(...) in a cell's text is rewritten to call a
//   helper compiled with the main context's default loader and /work/ as
//   its referrer, so specifiers resolve as from a module in /work
//   (/work/node_modules, then up; node: builtins). import() in code made at
//   run time (eval, new Function) still fails, and import.meta is a
//   SyntaxError, as in any script.
// - Globals: `require` (module.createRequire for /work/, as
//   images/node/require.mjs gives one-shot runs), and that import helper
//   under a Symbol.for key, not enumerable. Everything else of the
//   interpreter is module scope, out of user code's reach.
// - TypeScript: Node's own type stripper (module.stripTypeScriptTypes) in
//   "strip" mode, which keeps every line and column, or, for what needs
//   code (enums, namespaces, parameter properties, import =), "transform"
//   mode, after which stack-trace lines of that cell refer to the
//   transformed code. Types are not checked in sessions (the one-shot
//   `typecheck` option is for that); decorators are not supported (Node 24
//   does not run them).
// - stdin: process.stdin is a fresh Readable yielding the call's stdin
//   bytes, then end; fd 0 is an unlinked file holding them, so
//   fs.readFileSync(0), '/dev/stdin' and child processes that inherit
//   stdin read them too. Between calls fd 0 is /dev/null.
// - Output: console and process.stdout/stderr write to the pipes
//   synchronously (Node does for pipes on Linux); whatever a stream still
//   buffers is drained before the reply.
//
// Errors: an uncaught error is printed to stderr as "Uncaught <error with
// its stack>" (the interpreter's own frames removed; a syntax error with
// its line and a caret) and the cell ends with status 1. An error thrown,
// or a rejection left unhandled, by a callback while the cell runs ends it
// too, as it would end a one-shot program; after the cell such errors are
// printed (the agent drops output between calls) and the interpreter goes
// on. User code that listens for 'uncaughtException' or
// 'unhandledRejection' handles them itself.
//
// process.exit(n) in a cell ends the cell with status n and keeps the
// state (as SystemExit does in Python sessions): it throws a private
// value, so the code after it does not run, though a catch-all in user
// code catches it. Called by a callback after its cell ended, it does
// nothing. process.exitCode is ignored.
//
// Interrupts: SIGINT to the process group when a call times out or is
// cancelled. A JavaScript signal listener cannot run while the main thread
// is busy, and Node's only other SIGINT hook is vm's breakOnSigint, which
// terminates the JavaScript running in the vm call. So:
// - the synchronous part of a cell runs inside a vm call with
//   breakOnSigint, which turns the termination into a catchable error;
// - for what runs later (after an await, in callbacks), a worker thread
//   sits in a breakOnSigint vm call of its own. On SIGINT it tells the main
//   thread, which ends the cell with status 130 at once if it is waiting;
//   if it has not done so within INTERRUPT_GRACE_MS it is busy (a loop
//   after an await, in a timer...), and the worker stops the running
//   JavaScript with Runtime.terminateExecution over an inspector session of
//   its own, as DevTools stops a runaway console evaluation. Termination
//   skips the finally blocks of Node's timer and callback code, which then
//   leaves its async_hooks id stack unbalanced; Node checks that stack and
//   aborts the process unless --no-force-async-hooks-checks is given (with
//   it, only async_hooks.executionAsyncId() and friends may report stale
//   ids afterwards; AsyncLocalStorage is unaffected).
// The state is kept either way. What an interrupted cell left scheduled
// (timers, pending promises) keeps running: nothing can cancel it. Code
// blocked in a synchronous system call cannot be interrupted; the agent
// kills the interpreter after its grace period. A SIGINT while no call
// runs is ignored. SIGINT listeners (process.on('SIGINT')) of user code
// take SIGINT over, see WORKER below.
//
// Control fds: fds 0 and 3 are reopened through /proc/self/fd at fresh
// descriptors, close-on-exec as everything Node opens, then fd 0 becomes
// /dev/null and fd 3 is closed, so child processes never inherit the
// control pipes. Code in this process could still find them in
// /proc/self/fd: nothing in-process can hide them.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import vm from 'node:vm';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';

const TYPESCRIPT = process.argv.includes('--typescript');
// User code sees the argv of a program with no arguments.
process.argv.splice(2);

// How long the SIGINT worker waits for an idle main thread to end the
// cell itself before it concludes the thread is busy and terminates it.
const INTERRUPT_GRACE_MS = 100;
const STATUS_ERROR = 1;
const STATUS_INTERRUPTED = 130;

const cwd = process.cwd();
const baseDir = cwd.endsWith('/') ? cwd : `${cwd}/`;
const realExit = process.exit.bind(process);

// ---------------------------------------------------------------- fds ---

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL } = fs.constants;
// Linux's O_TMPFILE (with O_DIRECTORY), which fs.constants does not name.
const O_TMPFILE = 0o20200000;

function reopen(fd, flags) {
	try {
		return fs.openSync(`/proc/self/fd/${fd}`, flags);
	} catch {
		return -1;
	}
}

function sameFile(fd, st) {
	try {
		const now = fs.fstatSync(fd);
		return now.dev === st.dev && now.ino === st.ino;
	} catch {
		return false;
	}
}

function isOpen(fd) {
	try {
		fs.fstatSync(fd);
		return true;
	} catch {
		return false;
	}
}

// A socket (or no /proc) cannot be reopened: then the fd itself is used,
// visible to user code but working.
let reqFd = reopen(0, O_RDONLY);
if (reqFd < 0) reqFd = 0;
let repFd = reopen(3, O_WRONLY);
if (repFd >= 0) fs.closeSync(3);
else repFd = isOpen(3) ? 3 : 2; // started by hand without fd 3: stderr
let nullStat = null;
if (reqFd !== 0) {
	fs.closeSync(0);
	const fd = fs.openSync('/dev/null', O_RDONLY); // the lowest free fd: 0
	if (fd === 0) nullStat = fs.fstatSync(0);
	else fs.closeSync(fd);
}

// The stdin bytes of a call as fd 0: an unnamed file (O_TMPFILE), opened
// again read-only through /proc so that the new descriptor lands on the
// free fd 0 with its offset at the start. Best effort: when anything is
// off (fd 0 is not the /dev/null we put there, no O_TMPFILE) fd 0 stays as
// it is and process.stdin alone has the bytes.
let stdinStat = null;

function tmpFile() {
	const dir = os.tmpdir();
	try {
		return fs.openSync(dir, O_TMPFILE | O_RDWR, 0o600);
	} catch {
		const name = path.join(dir, `.sbx-stdin-${process.pid}-${Date.now()}`);
		const fd = fs.openSync(name, O_RDWR | O_CREAT | O_EXCL, 0o600);
		fs.unlinkSync(name);
		return fd;
	}
}

function devNullToFd0() {
	try {
		const fd = fs.openSync('/dev/null', O_RDONLY); // the lowest free fd: 0
		if (fd !== 0) fs.closeSync(fd);
	} catch {
		// nothing better to do
	}
}

function stdinToFd0(buf) {
	if (!buf.length || !nullStat || !sameFile(0, nullStat)) return;
	let t = -1;
	try {
		t = tmpFile();
		for (let off = 0; off < buf.length; )
			off += fs.writeSync(t, buf, off, buf.length - off);
		fs.closeSync(0);
		const fd = fs.openSync(`/proc/self/fd/${t}`, O_RDONLY);
		if (fd === 0) {
			stdinStat = fs.fstatSync(0);
		} else {
			fs.closeSync(fd); // another thread took fd 0 meanwhile
			devNullToFd0();
		}
	} catch {
		// process.stdin still has the bytes
		if (!isOpen(0)) devNullToFd0();
	} finally {
		if (t >= 0) fs.closeSync(t);
	}
}

// After the call: /dev/null again, unless user code replaced fd 0.
function stdinOffFd0() {
	if (!stdinStat) return;
	const ours = sameFile(0, stdinStat);
	stdinStat = null;
	if (!ours) return;
	fs.closeSync(0);
	devNullToFd0();
}

// ------------------------------------------------------------- output ---

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

// A whole write to fd 1, 2 or 3: fs.writeSync does partial writes and
// throws EAGAIN if some process sharing the pipe made it non-blocking.
function writeAll(fd, text) {
	const buf = Buffer.from(text);
	for (let off = 0; off < buf.length; ) {
		try {
			off += fs.writeSync(fd, buf, off, buf.length - off);
		} catch (e) {
			if (e.code !== 'EAGAIN') throw e;
			Atomics.wait(sleepCell, 0, 0, 1);
		}
	}
}

// Our own output goes straight to the fds (user code may have replaced
// process.stdout.write). Node writes to pipes synchronously on Linux, so
// the order with console.log is kept.
function out(text) {
	try {
		writeAll(1, text);
	} catch {
		// stdout is gone: nothing to tell anyone
	}
}

function err(text) {
	try {
		writeAll(2, text);
	} catch {
		// as above
	}
}

// Before the reply: whatever the process.stdout/stderr streams still
// buffer (nothing, normally: pipe writes are synchronous) must be written.
function flushed(then) {
	const pending = [process.stdout, process.stderr].filter(
		(s) => s.writableLength > 0 && !s.destroyed,
	);
	if (!pending.length) return then();
	let left = pending.length;
	let called = false;
	const done = () => {
		if (called) return;
		called = true;
		clearTimeout(timer);
		then();
	};
	const timer = setTimeout(done, 2000);
	for (const s of pending) s.once('drain', () => --left || done());
}

function inspect(value) {
	return util.inspect(value, { showProxy: true });
}

// The frames below a cell's code are the interpreter's (the inspector call
// and what led to it); they say nothing to the user.
const OWN_FRAME = /^(\s*)at Session\.post \(node:inspector:/;

function dropOwnFrames(text) {
	const lines = text.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const m = OWN_FRAME.exec(lines[i]);
		if (!m) continue;
		let j = i;
		while (j < lines.length && lines[j].startsWith(`${m[1]}at `)) j++;
		lines.splice(i, j - i);
	}
	return lines.join('\n');
}

// Runs fn with the `stack` of value, of its causes and of an
// AggregateError's errors trimmed by dropOwnFrames, then puts the original
// properties back: util.inspect must not see those frames at all (it
// folds frames an error shares with its cause into "... N lines matching
// cause stack trace ...", ours included).
function ownFramesHidden(value, fn) {
	const restore = [];
	const seen = new Set();
	const own = (o, k) => Object.getOwnPropertyDescriptor(o, k);
	const visit = (e, depth) => {
		if (e === null || typeof e !== 'object' || seen.has(e) || depth > 8) return;
		seen.add(e);
		try {
			const d = own(e, 'stack');
			if (d && d.configurable) {
				const stack = 'value' in d ? d.value : d.get ? Reflect.apply(d.get, e, []) : undefined;
				if (typeof stack === 'string') {
					const trimmed = dropOwnFrames(stack);
					// With no frame left util.inspect would print "[SyntaxError:
					// ...]": such a stack is left to dropOwnFrames on the text.
					if (trimmed !== stack && /\n\s+at /.test(trimmed)) {
						Object.defineProperty(e, 'stack', { value: trimmed, writable: true, configurable: true, enumerable: d.enumerable });
						restore.push([e, d]);
					}
				}
			}
			visit(own(e, 'cause')?.value, depth + 1);
			const errors = own(e, 'errors')?.value;
			if (Array.isArray(errors)) for (const x of errors.slice(0, 16)) visit(x, depth + 1);
		} catch {
			// a proxy or an exotic object: leave it as it is
		}
	};
	visit(value, 0);
	try {
		return fn();
	} finally {
		for (const [e, d] of restore.reverse()) {
			try {
				Object.defineProperty(e, 'stack', d);
			} catch {
				// frozen meanwhile: keep the trimmed stack
			}
		}
	}
}

function describeError(value) {
	try {
		return dropOwnFrames(ownFramesHidden(value, () => inspect(value)));
	} catch (e) {
		try {
			return `${String(value)} (and inspecting it failed: ${String(e)})`;
		} catch {
			return '[an object that cannot be printed]';
		}
	}
}

function printUncaught(value, inPromise) {
	err(`Uncaught ${inPromise ? '(in promise) ' : ''}${describeError(value)}\n`);
}

// ----------------------------------------------------- process.exit() ---

class ExitRequest {
	constructor(code) {
		this.code = code;
	}
	toString() {
		return `process.exit(${this.code})`;
	}
}

process.exit = function exit(code) {
	if (code === undefined || code === null) code = process.exitCode ?? 0;
	const n = Number(code);
	throw new ExitRequest(Number.isInteger(n) ? n & 0xff : STATUS_ERROR);
};

// ------------------------------------------------------------- globals ---

globalThis.require ??= createRequire(baseDir);

// Installed packages (sandbox_install into this session, docs/packages.md):
// a request may carry their directories. require() searches them as it
// would NODE_PATH; an import() of a bare specifier that fails from /work is
// tried again from each (importFrom below). No module hook: hooks must not
// run where the inspector evaluates without side effects.
const pkgDirs = [];
const pkgImporters = new Map();
function addPackageDirs(dirs) {
	const fresh = dirs.filter((d) => !pkgDirs.includes(d));
	if (!fresh.length) return;
	pkgDirs.push(...fresh);
	process.env.NODE_PATH = pkgDirs.join(':');
	nodeModule.Module._initPaths();
}

// import() for cell code: a script compiled by vm with the main context's
// default loader and /work/ as its name, so that specifiers resolve as they
// would from a module in /work.
const IMPORT_KEY = 'mcp-sandbox.import';
const IMPORTER = `globalThis[Symbol.for(${JSON.stringify(IMPORT_KEY)})]`;

// These two features print an ExperimentalWarning the first time they are
// used, once per process: use them once now with that warning dropped.
// User code still sees every other warning.
const dynamicImport = (() => {
	const emitWarning = process.emitWarning;
	process.emitWarning = function (warning, ...rest) {
		const text = String(warning?.message ?? warning);
		if (/^(stripTypeScriptTypes|vm\.USE_MAIN_CONTEXT_DEFAULT_LOADER) is an experimental/.test(text)) return;
		return emitWarning.call(this, warning, ...rest);
	};
	try {
		if (TYPESCRIPT) nodeModule.stripTypeScriptTypes('', { mode: 'strip' });
		const f = vm.runInThisContext('(specifier, options) => import(specifier, options)', {
			filename: baseDir,
			importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
		});
		// The warning is emitted on the first import(), asynchronously.
		f('node:fs').catch(() => {});
		return f;
	} finally {
		setImmediate(() => {
			process.emitWarning = emitWarning;
		});
	}
})();

// import() as from a module in dir: resolution walks up from there, so
// dir/<specifier> is found.
function importFrom(dir) {
	let f = pkgImporters.get(dir);
	if (!f) {
		f = vm.runInThisContext('(specifier, options) => import(specifier, options)', {
			filename: `${dir}/`,
			importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
		});
		pkgImporters.set(dir, f);
	}
	return f;
}

async function cellImport(specifier, options) {
	try {
		return await dynamicImport(specifier, options);
	} catch (e) {
		if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !pkgDirs.length || /^[./]|^[a-z]+:/i.test(String(specifier))) throw e;
		for (const d of pkgDirs) {
			try {
				return await importFrom(d)(specifier, options);
			} catch (e2) {
				if (e2?.code !== 'ERR_MODULE_NOT_FOUND') throw e2;
			}
		}
		throw e;
	}
}

Object.defineProperty(globalThis, Symbol.for(IMPORT_KEY), { value: cellImport });

// process.stdin: the current call's bytes, then end.
function makeStdin(buf) {
	const r = new Readable({ read() {} });
	if (buf.length) r.push(buf);
	r.push(null);
	r.fd = 0;
	return r;
}

let cellStdin = makeStdin(Buffer.alloc(0));
Object.defineProperty(process, 'stdin', {
	configurable: true,
	enumerable: true,
	get: () => cellStdin,
});

// ------------------------------------------------------- module syntax ---

// A scanner that knows JavaScript's lexical grammar well enough to find
// `import` and `export` outside strings, comments, regular expressions and
// templates, and to know the bracket depth. Whether `/` starts a regular
// expression is decided from the previous token, the usual heuristic (as
// es-module-lexer does).

const REGEX_AFTER_WORD = new Set([
	'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void',
	'throw', 'case', 'do', 'else', 'yield', 'await',
]);
// After these words a `{` opens an object literal, not a block.
const OBJECT_AFTER_WORD = new Set([
	'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void',
	'throw', 'case', 'yield', 'await', 'extends',
]);
const PAREN_KEYWORDS = new Set(['if', 'while', 'for', 'with']);
const DECLARATIONS = new Set(['const', 'let', 'var', 'function', 'async', 'class']);
const METHOD_MODIFIERS = new Set(['static', 'async', 'get', 'set']);
const PUNCTUATORS = [
	'>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=',
	'??=', '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--',
	'+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
];
const ID_REST = /[\p{ID_Continue}$\u200c\u200d]/u;
const ID_FIRST = /[\p{ID_Start}$_]/u;

function isSpace(c) {
	return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f' ||
		(c > '\x7f' && /[\s\uFEFF]/.test(c));
}

function isIdStart(src, i) {
	const c = src[i];
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '$' || c === '\\') return true;
	return c > '\x7f' && ID_FIRST.test(String.fromCodePoint(src.codePointAt(i)));
}

// The end of the identifier (or keyword) starting at i.
function wordEnd(src, i) {
	const n = src.length;
	while (i < n) {
		const c = src[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || c === '$') {
			i++;
		} else if (c === '\\') {
			// \uXXXX or \u{X...}
			const m = /^\\u(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]+\})/.exec(src.slice(i, i + 12));
			if (!m) break;
			i += m[0].length;
		} else if (c > '\x7f') {
			const cp = src.codePointAt(i);
			const ch = String.fromCodePoint(cp);
			if (!ID_REST.test(ch)) break;
			i += ch.length;
		} else {
			break;
		}
	}
	return i;
}

// The index of the next character that is not white space or a comment.
function skipTrivia(src, i) {
	const n = src.length;
	while (i < n) {
		const c = src[i];
		if (isSpace(c)) {
			i++;
		} else if (c === '/' && src[i + 1] === '/') {
			while (i < n && src[i] !== '\n' && src[i] !== '\r' && src[i] !== '\u2028' && src[i] !== '\u2029') i++;
		} else if (c === '/' && src[i + 1] === '*') {
			const e = src.indexOf('*/', i + 2);
			i = e < 0 ? n : e + 2;
		} else {
			break;
		}
	}
	return i;
}

// The end of the string literal starting at i (its quote).
function stringEnd(src, i) {
	const q = src[i];
	const n = src.length;
	for (i++; i < n; i++) {
		const c = src[i];
		if (c === '\\') i++;
		else if (c === q) return i + 1;
		else if (c === '\n' || c === '\r') return i; // unterminated
	}
	return n;
}

// Scans template characters from i (just after ` or the } closing a
// substitution) to the closing ` or to a `${`.
function templateEnd(src, i) {
	const n = src.length;
	for (; i < n; i++) {
		const c = src[i];
		if (c === '\\') i++;
		else if (c === '`') return { end: i + 1, substitution: false };
		else if (c === '$' && src[i + 1] === '{') return { end: i + 2, substitution: true };
	}
	return { end: n, substitution: false };
}

function regexEnd(src, i) {
	const n = src.length;
	let inClass = false;
	for (i++; i < n; i++) {
		const c = src[i];
		if (c === '\\') i++;
		else if (c === '[') inClass = true;
		else if (c === ']') inClass = false;
		else if (c === '/' && !inClass) {
			i++;
			break;
		} else if (c === '\n' || c === '\r') break;
	}
	return wordEnd(src, i); // flags
}

function numberEnd(src, i) {
	const n = src.length;
	const hex = src[i] === '0' && (src[i + 1] === 'x' || src[i + 1] === 'X');
	for (i++; i < n; i++) {
		const c = src[i];
		if (/[0-9A-Za-z_.]/.test(c)) continue;
		if ((c === '+' || c === '-') && !hex && (src[i - 1] === 'e' || src[i - 1] === 'E')) continue;
		break;
	}
	return i;
}

// One token for the import-declaration parser: a word, a string literal,
// or one punctuator character.
function lex(src, i) {
	const s = skipTrivia(src, i);
	if (s >= src.length) return { type: 'end', v: '', s, e: s };
	const c = src[s];
	if (c === '"' || c === "'") {
		const e = stringEnd(src, s);
		return { type: 'str', v: src.slice(s, e), s, e };
	}
	if (isIdStart(src, s)) {
		const e = wordEnd(src, s);
		return { type: 'word', v: src.slice(s, e), s, e };
	}
	return { type: 'punct', v: c, s, e: s + 1 };
}

// Parses `import ...` from just after the keyword. Returns the end of the
// declaration and the statement that replaces it, or null when this is not
// an import declaration we understand (V8 then reports the syntax error).
function importDeclaration(src, i) {
	let t = lex(src, i);
	let spec;
	let defaultName = null;
	let nsName = null;
	const named = [];
	if (t.type === 'str') {
		spec = t;
	} else {
		let clause = false;
		if (t.type === 'word' && t.v !== 'from') {
			defaultName = t.v;
			clause = true;
			t = lex(src, t.e);
			if (t.v === ',') t = lex(src, t.e);
			else if (!(t.type === 'word' && t.v === 'from')) return null;
		} else if (t.type === 'word') {
			// `import from from 'm'` or `import from, {...}`
			const after = lex(src, t.e);
			if (after.type === 'word' && after.v === 'from') {
				defaultName = 'from';
				t = after;
				clause = true;
			} else if (after.v === ',') {
				defaultName = 'from';
				t = lex(src, after.e);
				clause = true;
			} else {
				return null;
			}
		}
		if (t.type === 'punct' && t.v === '*') {
			const as = lex(src, t.e);
			const name = lex(src, as.e);
			if (as.v !== 'as' || name.type !== 'word') return null;
			nsName = name.v;
			t = lex(src, name.e);
		} else if (t.type === 'punct' && t.v === '{') {
			let k = t.e;
			for (;;) {
				let x = lex(src, k);
				if (x.v === '}') {
					k = x.e;
					break;
				}
				if (x.type !== 'word' && x.type !== 'str') return null;
				const imported = x.v;
				let local = x.type === 'word' ? x.v : null;
				x = lex(src, x.e);
				if (x.type === 'word' && x.v === 'as') {
					const l = lex(src, x.e);
					if (l.type !== 'word') return null;
					local = l.v;
					x = lex(src, l.e);
				}
				if (local === null) return null;
				named.push([imported, local]);
				if (x.v === '}') {
					k = x.e;
					break;
				}
				if (x.v !== ',') return null;
				k = x.e;
			}
			t = lex(src, k);
		} else if (!clause) {
			return null;
		}
		if (!(t.type === 'word' && t.v === 'from')) return null;
		spec = lex(src, t.e);
		if (spec.type !== 'str') return null;
	}
	let end = spec.e;
	let attributes = '';
	let t2 = lex(src, end);
	if (t2.type === 'word' && (t2.v === 'with' || t2.v === 'assert')) {
		const open = lex(src, t2.e);
		if (open.v !== '{') return null;
		let k = open.e;
		for (;;) {
			const x = lex(src, k);
			if (x.type === 'end') return null;
			k = x.e;
			if (x.v === '}') break;
		}
		attributes = `, { with: ${src.slice(open.s, k)} }`;
		end = k;
		t2 = lex(src, end);
	}
	if (t2.v === ';') end = t2.e;

	const call = `await ${IMPORTER}(${spec.v}${attributes})`;
	let code;
	if (nsName !== null) {
		code = `const ${nsName} = ${call}${defaultName !== null ? `, ${defaultName} = ${nsName}.default` : ''};`;
	} else if (defaultName !== null || named.length || t.v === 'from') {
		const parts = [];
		if (defaultName !== null) parts.push(`default: ${defaultName}`);
		for (const [imported, local] of named) parts.push(imported === local ? local : `${imported}: ${local}`);
		code = `const { ${parts.join(', ')} } = ${call};`;
	} else {
		code = `${call};`;
	}
	return { end, code };
}

// The cell with its module syntax rewritten for a script (see the top of
// the file). Lines stay where they were: a rewritten import declaration is
// followed by as many newlines as it spanned, and `export` becomes spaces.
function rewriteModuleSyntax(src) {
	if (!src.includes('import') && !src.includes('export')) return src;
	const n = src.length;
	const pieces = [];
	let copied = 0;
	const replace = (s, e, text) => {
		pieces.push(src.slice(copied, s), text);
		copied = e;
	};
	const stack = []; // open brackets: { ch, kind, kw }
	let prev = null; // the previous token: { t: 'p'|'w'|'v', v, re }
	let classDepth = -1; // the depth whose next `{` opens a class body

	const regexAllowed = () => {
		if (!prev) return true;
		if (prev.t === 'v') return false;
		if (prev.t === 'w') return REGEX_AFTER_WORD.has(prev.v);
		if (prev.v === ')' || prev.v === '}') return prev.re;
		return !(prev.v === ']' || prev.v === '++' || prev.v === '--');
	};
	const afterDot = () => prev && prev.t === 'p' && (prev.v === '.' || prev.v === '?.');

	let i = 0;
	if (src.startsWith('#!')) i = skipTrivia(src, src.search(/[\n\r]|$/));
	while (i < n) {
		i = skipTrivia(src, i);
		if (i >= n) break;
		const c = src[i];
		if (c === '"' || c === "'") {
			i = stringEnd(src, i);
			prev = { t: 'v' };
		} else if (c === '`' || (c === '}' && stack.length && stack[stack.length - 1].ch === '${')) {
			if (c === '}') stack.pop();
			const r = templateEnd(src, i + 1);
			i = r.end;
			if (r.substitution) {
				stack.push({ ch: '${', kind: 'object' });
				prev = { t: 'p', v: '${' };
			} else {
				prev = { t: 'v' };
			}
		} else if (c === '/') {
			if (regexAllowed()) {
				i = regexEnd(src, i);
				prev = { t: 'v' };
			} else {
				const e = src[i + 1] === '=' ? i + 2 : i + 1;
				prev = { t: 'p', v: src.slice(i, e) };
				i = e;
			}
		} else if ((c >= '0' && c <= '9') || (c === '.' && src[i + 1] >= '0' && src[i + 1] <= '9')) {
			i = numberEnd(src, i);
			prev = { t: 'v' };
		} else if (c === '#') {
			// a private name (#x), or junk
			i = wordEnd(src, i + 1);
			prev = { t: 'w', v: '#' };
		} else if (isIdStart(src, i)) {
			const s = i;
			const w = src.slice(s, (i = wordEnd(src, i)));
			if (w === 'import' && !afterDot()) {
				const next = skipTrivia(src, i);
				const top = stack[stack.length - 1];
				if (src[next] === '(') {
					// import(...), unless it names a method: `{ import() {} }`
					const method = top && (top.kind === 'class' || top.kind === 'object') && top.ch === '{' &&
						(!prev || (prev.t === 'p' && ['{', ',', ';', '}', '*'].includes(prev.v)) ||
							(prev.t === 'w' && METHOD_MODIFIERS.has(prev.v)));
					if (!method) replace(s, i, IMPORTER);
				} else if (src[next] !== '.' && stack.length === 0) {
					const d = importDeclaration(src, i);
					if (d) {
						const lines = src.slice(s, d.end).split('\n').length - 1;
						replace(s, d.end, d.code + '\n'.repeat(lines));
						i = d.end;
						prev = { t: 'p', v: ';' };
						continue;
					}
				}
			} else if (w === 'export' && stack.length === 0 && !afterDot()) {
				const t = lex(src, i);
				if (t.type === 'word' && DECLARATIONS.has(t.v)) {
					replace(s, i, ' '.repeat(i - s));
				} else if (t.type === 'word' && t.v === 'default') {
					// A declaration stays one; anything else becomes the
					// expression statement `0, <expr>` (so `{` starts an
					// object), padded to keep positions.
					const after = lex(src, t.e);
					const declaration = after.type === 'word' && ['function', 'class', 'async'].includes(after.v);
					const blank = src.slice(s, t.e).replace(/[^\n\r]/g, ' ');
					replace(s, t.e, declaration ? blank : `0,${blank.slice(2)}`);
					i = t.e;
					prev = declaration ? null : { t: 'p', v: ',' };
					continue;
				}
			}
			if (w === 'class') classDepth = stack.length;
			prev = { t: 'w', v: w };
		} else if (c === '{') {
			let kind;
			if (classDepth === stack.length) {
				kind = 'class';
				classDepth = -1;
			} else if (!prev) {
				kind = 'block';
			} else if (prev.t === 'p') {
				kind = [')', ']', '}', ';', '=>', '{'].includes(prev.v) ? 'block' : 'object';
			} else if (prev.t === 'w') {
				kind = OBJECT_AFTER_WORD.has(prev.v) ? 'object' : 'block';
			} else {
				kind = 'block';
			}
			stack.push({ ch: '{', kind });
			prev = { t: 'p', v: '{' };
			i++;
		} else if (c === '(' || c === '[') {
			stack.push({ ch: c, kw: prev && prev.t === 'w' ? prev.v : null });
			prev = { t: 'p', v: c };
			i++;
		} else if (c === ')' || c === ']' || c === '}') {
			const top = stack.pop();
			prev = {
				t: 'p',
				v: c,
				re: c === ')' ? !!(top && PAREN_KEYWORDS.has(top.kw)) : c === '}' ? !top || top.kind !== 'object' : false,
			};
			i++;
		} else {
			let p = PUNCTUATORS.find((x) => src.startsWith(x, i)) ?? c;
			if (p === '?.' && src[i + 2] >= '0' && src[i + 2] <= '9') p = '?'; // a ? .5 : b
			prev = { t: 'p', v: p };
			i += p.length;
		}
	}
	if (!pieces.length) return src;
	pieces.push(src.slice(copied));
	return pieces.join('');
}

// TypeScript to JavaScript: "strip" keeps positions; "transform" for what
// strip cannot do (enums, namespaces, parameter properties, import =).
function stripTypes(cell) {
	try {
		return nodeModule.stripTypeScriptTypes(cell.code, { mode: 'strip' });
	} catch (e) {
		if (e?.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw e;
		cell.transformed = true;
		return nodeModule.stripTypeScriptTypes(cell.code, { mode: 'transform' });
	}
}

// ----------------------------------------------------------- inspector ---

const session = new Session();
session.connect();

// Synchronous inspector calls: the in-process session answers every method
// but an awaited evaluation before post() returns.
function call(method, params) {
	let error = null;
	let result = null;
	let answered = false;
	session.post(method, params, (e, r) => {
		error = e;
		result = r;
		answered = true;
	});
	if (!answered) throw new Error(`inspector: ${method} did not answer`);
	if (error) throw error;
	return result;
}

// Results come back as remote object ids; a private sink function, known
// to the inspector by id only, turns one into the value itself.
let sunk;
const sinkId = (() => {
	const name = `__sbx_sink_${process.pid}_${Date.now()}`;
	globalThis[name] = (v) => {
		sunk = v;
	};
	try {
		return call('Runtime.evaluate', { expression: name, objectGroup: 'sbx-private' }).result.objectId;
	} finally {
		delete globalThis[name];
	}
})();

function valueOf(remote) {
	if (!remote || remote.type === 'undefined') return undefined;
	let arg;
	if (remote.objectId) arg = { objectId: remote.objectId };
	else if (remote.unserializableValue !== undefined) arg = { unserializableValue: remote.unserializableValue };
	else arg = { value: remote.value };
	sunk = undefined;
	call('Runtime.callFunctionOn', {
		objectId: sinkId,
		functionDeclaration: 'function (v) { this(v); }',
		arguments: [arg],
		silent: true,
	});
	const v = sunk;
	sunk = undefined;
	return v;
}

// ------------------------------------------------------------ SIGINT ---

// state[0]: the id of the running cell, 0 while idle. The worker reads it
// to decide whether a SIGINT matters, and waits on it for the main thread
// to end the cell. state[1]: never changes (the worker waits on it).
// state[2]: the id of the cell the last SIGINT was for, so that the main
// thread knows why an evaluation was terminated.
const state = new Int32Array(new SharedArrayBuffer(12));

const WORKER = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { Session } = require('node:inspector');
const vm = require('node:vm');
const state = new Int32Array(workerData.state);
const session = new Session();
session.connectToMainThread();
function onSigint() {
	const cell = Atomics.load(state, 0);
	if (!cell) return;
	Atomics.store(state, 2, cell);
	parentPort.postMessage(cell);
	if (Atomics.wait(state, 0, cell, workerData.grace) === 'timed-out' && Atomics.load(state, 0) === cell)
		session.post('Runtime.terminateExecution');
}
const interrupted = (e) => e && e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
// state[1] never changes: the inner call waits until a SIGINT terminates
// it. The outer call keeps Node's SIGINT watchdog started while the inner
// one is re-entered: when the last watchdog stops, Node makes SIGINT fatal.
const ctx = vm.createContext({ state, loop: null });
const inner = new vm.Script('Atomics.wait(state, 1, 0)');
ctx.loop = () => {
	for (;;) {
		try { inner.runInContext(ctx, { breakOnSigint: true }); }
		catch (e) { if (!interrupted(e)) throw e; onSigint(); }
	}
};
const outer = new vm.Script('loop()');
for (;;) {
	try { outer.runInContext(ctx, { breakOnSigint: true }); }
	catch (e) { if (!interrupted(e)) throw e; onSigint(); }
}
`;

// No process.on('SIGINT') here: a vm call with breakOnSigint on this
// thread takes the process's SIGINT listeners off and puts them back
// afterwards, and putting them back hands SIGINT to libuv, away from the
// watchdog. So until the worker's watchdog is up (the first tens of
// milliseconds, while the first call runs) SIGINT ends the interpreter, as
// it does if the worker dies. A SIGINT listener added by user code takes
// SIGINT over: it runs, interrupts stop nothing, and the agent kills the
// interpreter after its grace period.

const sigintWorker = new Worker(WORKER, {
	eval: true,
	workerData: { state: state.buffer, grace: INTERRUPT_GRACE_MS },
	stdout: false,
	stderr: false,
});
sigintWorker.unref();
sigintWorker.on('message', (id) => {
	if (current && current.id === id) interrupt(current, false);
});
sigintWorker.on('error', (e) => {
	err(`repl: the SIGINT worker failed (${e?.message ?? e}): from now on an interrupt stops a cell's synchronous part and ends the interpreter otherwise\n`);
});

// --------------------------------------------------------------- cells ---

let current = null; // the running cell: { id, seq, ended }
let replying = false; // a finished cell's reply waits for output to drain
let cellCount = 0;

function finish(cell, status) {
	if (cell.ended) return;
	cell.ended = true;
	cell.code = cell.stripped = cell.src = ''; // an abandoned cell may stay referenced
	if (current === cell) current = null;
	Atomics.store(state, 0, 0);
	Atomics.notify(state, 0);
	stdinOffFd0();
	cellStdin = makeStdin(Buffer.alloc(0));
	try {
		session.post('Runtime.releaseObjectGroup', { objectGroup: 'sbx-cell' });
	} catch {
		// nothing held
	}
	replying = true;
	flushed(() => {
		try {
			writeAll(repFd, `done ${cell.seq} ${status}\n`);
		} catch {
			realExit(0); // the agent is gone
		}
		replying = false;
		pump();
	});
}

function interrupt(cell, sync) {
	err(sync
		? 'Interrupted: the cell was stopped (SIGINT)\n'
		: 'Interrupted (SIGINT): the cell was stopped; timers and promises it left pending may still run\n');
	finish(cell, STATUS_INTERRUPTED);
}

// A syntax error has no stack frame in the cell: show where, as node does
// for a script. The line shown is the user's own when the rewriting left it
// alone (so is its column: type stripping keeps positions), else the
// rewritten one, which is what the column refers to.
const LINES = /\r\n|[\n\r\u2028\u2029]/;

function syntaxErrorHeader(cell, details) {
	const n = details.lineNumber;
	if (typeof n !== 'number') return '';
	let line = cell.src.split(LINES)[n];
	if (line === undefined) return '';
	if (!cell.transformed && cell.stripped.split(LINES)[n] === line) line = cell.code.split(LINES)[n] ?? line;
	return `cell-${cell.id}:${n + 1}\n${line}\n${' '.repeat(details.columnNumber ?? 0)}^\n\n`;
}

// A TypeScript syntax error: Node's stripper puts ":<line>", the lines and
// a caret in front of the stack; shown like syntaxErrorHeader's, without
// the stripper's frames.
function typeScriptError(cell, e) {
	const lines = String(e?.stack ?? '').split('\n');
	while (lines.length && /^\s+at /.test(lines[lines.length - 1])) lines.pop();
	const head = e?.name && lines.findIndex((l, i) => i > 0 && l.startsWith(e.name));
	if (!/^:\d+$/.test(lines[0] ?? '') || !(head > 0))
		return `Uncaught ${e?.name ?? 'Error'}${e?.code ? ` [${e.code}]` : ''}: ${e?.message ?? e}\n`;
	lines[0] = `cell-${cell.id}${lines[0]}`;
	lines[head] = `Uncaught ${lines[head]}`;
	return `${lines.join('\n')}\n`;
}

function onEvaluated(cell, error, res) {
	if (cell.ended) {
		// An interrupted cell finished after all: its error is still news.
		if (res?.exceptionDetails) {
			const v = valueOf(res.exceptionDetails.exception ?? res.result);
			if (!(v instanceof ExitRequest)) printUncaught(v, false);
		}
		return;
	}
	if (error) {
		// The worker stopped a busy cell while the inspector was running it.
		if (Atomics.load(state, 2) === cell.id) return interrupt(cell, true);
		err(`repl: the inspector failed: ${error.message}\n`);
		return finish(cell, STATUS_ERROR);
	}
	const details = res.exceptionDetails;
	if (details) {
		const v = valueOf(details.exception ?? res.result);
		if (v instanceof ExitRequest) return finish(cell, v.code);
		let header = '';
		if (v instanceof SyntaxError && !details.stackTrace) header = syntaxErrorHeader(cell, details);
		err(header);
		printUncaught(v, false);
		return finish(cell, STATUS_ERROR);
	}
	try {
		const v = valueOf(res.result);
		if (v !== undefined) out(`${inspect(v)}\n`);
	} catch (e) {
		printUncaught(e, false);
		return finish(cell, STATUS_ERROR);
	}
	finish(cell, 0);
}

// The synchronous part of a cell runs inside a vm call with breakOnSigint
// (see the top of the file); the vm script only calls back into runSync.
let runSync = null;
const runnerContext = vm.createContext({ run: () => runSync() });
const runner = new vm.Script('run()', { filename: 'sbx-repl' });

function runCell(seq, code, stdin) {
	// code: as sent; stripped: without types; src: what is evaluated.
	const cell = { id: ++cellCount, seq, ended: false, code, stripped: code, src: '', transformed: false };
	current = cell;
	Atomics.store(state, 0, cell.id);
	cellStdin = makeStdin(stdin);
	stdinToFd0(stdin);
	let inPost = false;
	let early = null;
	runSync = () => {
		try {
			if (TYPESCRIPT) cell.stripped = stripTypes(cell);
			cell.src = rewriteModuleSyntax(cell.stripped);
		} catch (e) {
			err(typeScriptError(cell, e));
			return finish(cell, STATUS_ERROR);
		}
		inPost = true;
		session.post(
			'Runtime.evaluate',
			{
				expression: `${cell.src}\n//# sourceURL=cell-${cell.id}`,
				replMode: true,
				awaitPromise: true,
				objectGroup: 'sbx-cell',
				silent: true,
			},
			(e, r) => {
				// Answered within post() (a syntax error): handle it after.
				if (inPost) early = [e, r];
				else onEvaluated(cell, e, r);
			},
		);
		inPost = false;
	};
	try {
		// With a SIGINT listener of user code around, vm would take it off
		// for the call (SIGINT is then fatal) and put it back: see WORKER.
		runner.runInContext(runnerContext, { breakOnSigint: process.listenerCount('SIGINT') === 0 });
	} catch (e) {
		inPost = false;
		if (e?.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED' || Atomics.load(state, 2) === cell.id) return interrupt(cell, true);
		err(`repl: internal error: ${describeError(e)}\n`);
		return finish(cell, STATUS_ERROR);
	} finally {
		runSync = null;
	}
	if (early) onEvaluated(cell, ...early);
}

// Errors that reach the top: from the running cell's callbacks they end
// the cell (a one-shot program would have died); later ones are printed.
// When user code listens for them too, it handles them, as in a program.
function topLevelError(event, e) {
	if (e instanceof ExitRequest) {
		if (current) finish(current, e.code);
		return;
	}
	if (process.listenerCount(event) > 1) return;
	printUncaught(e, event === 'unhandledRejection');
	if (current) finish(current, STATUS_ERROR);
}
process.on('uncaughtException', (e) => topLevelError('uncaughtException', e));
process.on('unhandledRejection', (e) => topLevelError('unhandledRejection', e));

// ------------------------------------------------------------ requests ---

let inbuf = Buffer.alloc(0);
const HEADER = /^run (\d+) (\d+) (\d+)(?: (\d+))?$/;

function pump() {
	while (!current && !replying) {
		const nl = inbuf.indexOf(10);
		if (nl < 0) return;
		const m = HEADER.exec(inbuf.toString('latin1', 0, nl));
		if (!m) {
			err(`repl: bad request line ${JSON.stringify(inbuf.toString('utf8', 0, Math.min(nl, 80)))}\n`);
			inbuf = inbuf.subarray(nl + 1);
			continue;
		}
		const codeLen = Number(m[2]);
		const stdinLen = Number(m[3]);
		const pathsLen = Number(m[4] ?? 0);
		const start = nl + 1;
		const end = start + codeLen + stdinLen;
		if (inbuf.length < end + pathsLen) return;
		const code = inbuf.toString('utf8', start, start + codeLen);
		const stdin = Buffer.from(inbuf.subarray(start + codeLen, end));
		addPackageDirs(inbuf.toString('utf8', end, end + pathsLen).split('\n').filter(Boolean));
		inbuf = inbuf.subarray(end + pathsLen);
		runCell(Number(m[1]), code, stdin);
	}
}

const requests = fs.fstatSync(reqFd).isFIFO() || fs.fstatSync(reqFd).isSocket()
	? new net.Socket({ fd: reqFd, readable: true, writable: false })
	: fs.createReadStream(null, { fd: reqFd });
requests.on('data', (chunk) => {
	inbuf = inbuf.length ? Buffer.concat([inbuf, chunk]) : chunk;
	pump();
});
// The agent closed the request pipe: it is done with us.
requests.on('end', () => {
	session.disconnect();
	setTimeout(() => realExit(0), 1000).unref();
	sigintWorker.terminate().finally(() => realExit(0));
});
requests.on('error', (e) => {
	err(`repl: reading requests: ${e.message}\n`);
	realExit(STATUS_ERROR);
});
