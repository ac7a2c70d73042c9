// compare.mjs - the same cases on two builds in one run, for the
// before/after table in docs/benchmarks.md:
//
//   node compare.mjs BEFORE_BIN AFTER_BIN [--quick]
//
// Each binary runs with the sandbox.ini of its own source tree (the shipped
// settings of that version). Older builds do not log when their pools are
// warm, so here a pool counts as warm once the server's container count has
// not changed for WARM_STABLE_MS, and every series starts with warm-up
// calls. The builds take turns case by case (the latency cases in the order
// given, the throughput cases in the reverse order) so that drift of this
// noisy machine does not favour one of them.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  HELLO, call, connect, containersMemory, memKiB, pct, serverContainers, series, timed,
} from "./lib.mjs";

const [before, after] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const quick = process.argv.includes("--quick");
const N = quick ? 20 : 100;
const RATE_S = quick ? 5 : 15;
const WARM_STABLE_MS = 5000;
if (!before || !after) {
  console.error("usage: node compare.mjs BEFORE_BIN AFTER_BIN [--quick]");
  process.exit(2);
}

// Until the server's container count has held still for WARM_STABLE_MS.
async function settled(srv, timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  let n = -1, since = Date.now();
  while (Date.now() < end) {
    const m = serverContainers(srv.pid).length;
    if (m !== n) [n, since] = [m, Date.now()];
    else if (m > 0 && Date.now() - since >= WARM_STABLE_MS) return n;
    await new Promise((r) => setTimeout(r, 250));
  }
  return n;
}

async function withServer(bin, env, fn) {
  const state = mkdtempSync(path.join(os.tmpdir(), "sbx-compare-"));
  const srv = await connect({ SANDBOX_SESSIONS_STATE_DIR: state, ...env }, bin);
  try {
    return await fn(srv);
  } finally {
    await srv.client.close();
    rmSync(state, { recursive: true, force: true });
  }
}

// Just started and left alone: containers, their memory once it has
// stopped growing (warm-ups such as python-ml's fork server load their
// libraries after the container exists), server RSS.
const idle = (bin) => withServer(bin, {}, async (srv) => {
  const n = await settled(srv);
  let mem = containersMemory(serverContainers(srv.pid)), prev;
  const end = Date.now() + 120_000;
  do {
    prev = mem;
    await new Promise((r) => setTimeout(r, 3000));
    mem = containersMemory(serverContainers(srv.pid));
  } while (Date.now() < end && Math.abs(mem.mib - prev.mib) > Math.max(2, prev.mib * 0.02));
  return { containers: n, mib: mem.mib, rssKiB: memKiB(srv.pid).rss };
});

// One-off p50 per language, then a python session's x += 1, then RSS.
const latency = (bin) => withServer(bin, {}, async (srv) => {
  const out = {};
  await settled(srv);
  for (const [lang, code] of [["python", "print(1)"], ["bash", "echo 1"], ...Object.entries(HELLO)]) {
    await call(srv.client, lang, code); // a language that is not warm at start warms here
    await settled(srv);
    out[lang] = pct(await series(srv.client, lang, code, N), 50);
  }
  const s = await srv.client.callTool({ name: "sandbox_session", arguments: { action: "create", language: "python" } });
  const name = s.structuredContent.session.name;
  const exec = (code) => srv.client.callTool({ name: "sandbox_execute", arguments: { session: name, code } });
  await exec("x = 0");
  for (let i = 0; i < 5; i++) await exec("x += 1");
  const xs = [];
  for (let i = 0; i < N; i++) xs.push(await timed(() => exec("x += 1")));
  out.session = pct(xs, 50);
  out.rssKiB = memKiB(srv.pid).rss;
  return out;
});

// python print(1): executions/s for one caller, then four.
const throughput = (bin) => withServer(bin, {}, async (srv) => {
  await settled(srv);
  const rate = async (seconds, callers) => {
    let done = 0;
    const end = Date.now() + seconds * 1000, t0 = Date.now();
    await Promise.all(Array.from({ length: callers }, async () => {
      while (Date.now() < end) { await call(srv.client, "python", "print(1)"); done++; }
    }));
    return done / ((Date.now() - t0) / 1000);
  };
  const seq = await rate(RATE_S, 1);
  await rate(3, 4); // the pool may grow under the new load
  const conc = await rate(RATE_S, 4);
  return { seq, conc, containers: serverContainers(srv.pid).length };
});

const r = { before: {}, after: {} };
console.log(`# compare ${new Date().toISOString()}  ${os.cpus().length} x ${os.cpus()[0].model}`);
console.log(`# docker ${execFileSync("docker", ["version", "--format", "{{.Server.Version}}"]).toString().trim()}; before ${before}; after ${after}`);
for (const [k, bin] of [["before", before], ["after", after]]) r[k].idle = await idle(bin);
for (const [k, bin] of [["before", before], ["after", after]]) r[k].lat = await latency(bin);
for (const [k, bin] of [["after", after], ["before", before]]) r[k].tp = await throughput(bin);

const f = (x) => (typeof x === "number" ? x.toFixed(1) : String(x));
const row = (name, b, a, unit = "") => console.log(`| ${name} | ${f(b)}${unit} | ${f(a)}${unit} | ${(a / b).toFixed(2)} |`);
console.log("\n| measure | before | after | after / before |\n|---|---|---|---|");
for (const lang of Object.keys(r.after.lat).filter((l) => !["session", "rssKiB"].includes(l)))
  row(`${lang} one-off p50`, r.before.lat[lang], r.after.lat[lang], " ms");
row("python in-session `x += 1` p50", r.before.lat.session, r.after.lat.session, " ms");
row("python print(1), 1 caller", r.before.tp.seq, r.after.tp.seq, "/s");
row("python print(1), 4 callers", r.before.tp.conc, r.after.tp.conc, "/s");
console.log(`| 4 callers / 1 caller | ${(r.before.tp.conc / r.before.tp.seq).toFixed(2)}x | ${(r.after.tp.conc / r.after.tp.seq).toFixed(2)}x | |`);
console.log(`| containers after the 4-caller phase | ${r.before.tp.containers} | ${r.after.tp.containers} | |`);
row("just-started idle server: containers", r.before.idle.containers, r.after.idle.containers);
row("just-started idle server: memory in them", r.before.idle.mib, r.after.idle.mib, " MiB");
row("server RSS, idle", r.before.idle.rssKiB / 1024, r.after.idle.rssKiB / 1024, " MiB");
row("server RSS, after the latency cases", r.before.lat.rssKiB / 1024, r.after.lat.rssKiB / 1024, " MiB");
