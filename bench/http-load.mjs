// http-load.mjs - a bounded load test of `serve --http` across two
// engines (issue 15; results in docs/scaling.md and docs/benchmarks.md).
//
//   node http-load.mjs [--clients 50] [--seconds 60] [--session-share 0.3]
//
// Starts a second dockerd of its own (tests/e2e/lib/engines.mjs: its own
// data root, socket and bridge, no iptables), a server with both engines
// and two tenants, then N clients on 127.0.0.1 for S seconds: each
// keeps one connection and sends 2026-07-28 requests back to back, a
// share of them in a sandbox session of the client's own, the rest
// one-off. Every call must succeed, except those a quota refused
// (counted apart). Prints throughput, latency percentiles per kind, the
// split between the engines, and the server's RSS and open descriptors
// before the load and after it (once its connections have closed).
// Everything stays on this machine; it stops by itself.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { startEngine } from "../tests/e2e/lib/engines.mjs";
import { modernHeaders } from "../tests/e2e/lib/http.mjs";
import { SERVER, pct } from "./lib.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CLIENTS = arg("clients", 50);
const SECONDS = arg("seconds", 60);
const SESSION_SHARE = arg("session-share", 0.3);
const IMAGE = "mcp-sandbox/bash:latest";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const cleanups = [];
const h = { t: { after: (fn) => cleanups.push(fn) } };
async function cleanup() {
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (e) {
      console.error(`cleanup: ${e.message}`);
    }
  }
}

function procStats(pid) {
  const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
  return { rssKiB: rss, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/** One request on a client's own kept-alive connection: { ms, msg, status }. */
function post(url, body, token, ag) {
  const u = new URL(url);
  const data = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent: ag,
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}`, ...modernHeaders(body), "content-length": Buffer.byteLength(data) },
    }, (res) => {
      let text = "";
      res.on("data", (c) => { text += c; });
      res.on("end", () => {
        let msg;
        try { msg = JSON.parse(text); } catch { msg = null; }
        resolve({ ms: performance.now() - t0, msg, status: res.statusCode });
      });
    });
    req.on("error", reject);
    req.end(data);
  });
}

const call = (url, token, ag, name, args) =>
  post(url, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta: META } }, token, ag);

/** The outcome of a call: "ok", "quota" or the failure's text. */
function outcome(r) {
  if (r.status !== 200 || !r.msg) return `HTTP ${r.status}`;
  if (r.msg.error) return `JSON-RPC ${r.msg.error.code}: ${r.msg.error.message}`;
  const res = r.msg.result;
  const body = JSON.parse(res.content[0].text);
  if (res.isError) return body.error?.code === "quota_exceeded" ? "quota" : `${body.error?.code}: ${body.error?.message}`;
  if (body.exitCode !== 0) return `exit ${body.exitCode}: ${body.stderr}`;
  return "ok";
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sbx-load-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  console.log(`starting a second engine and loading ${IMAGE} into it...`);
  const second = await startEngine(h, { images: [IMAGE] });

  const tokens = path.join(dir, "tokens");
  const tok = {};
  for (const t of ["team-a", "team-b"])
    tok[t] = execFileSync(SERVER, ["token", t, "--file", tokens]).toString().trim();
  const ini = path.join(dir, "sandbox.ini");
  fs.writeFileSync(ini, [
    "[pool]", "warm_at_start = bash", "max_containers = 24",
    "[sessions]", `max_sessions = ${CLIENTS + 8}`, `state_dir = ${dir}/state`,
    "[audit]", `file = ${dir}/audit.log`,
    "[http]", `tokens_file = ${tokens}`, "quota_concurrent = 40", `quota_sessions = ${CLIENTS}`,
    "quota_per_minute = 100000", "max_connections = 256",
    "[bash]", "pool_size = 4", "pool_max_size = 10",
    "[python]", "enabled = no", "[python-ml]", "enabled = no", "[javascript]", "enabled = no",
    "[typescript]", "enabled = no", "[go]", "enabled = no", "[rust]", "enabled = no",
    "[engine.local]", "host = unix:///var/run/docker.sock",
    "[engine.second]", `host = ${second.url}`, "",
  ].join("\n"));

  const srv = spawn(SERVER, ["serve", "--http", "127.0.0.1:0", "--config", ini], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  srv.stderr.on("data", (c) => { log += c; });
  cleanups.push(async () => {
    if (srv.exitCode !== null) return;
    srv.kill("SIGTERM");
    await new Promise((r) => srv.on("exit", r));
  });
  const until = async (re, what, n = 1) => {
    const end = Date.now() + 180_000;
    while ((log.match(new RegExp(re.source, "g")) || []).length < n) {
      if (srv.exitCode !== null || Date.now() > end) throw new Error(`no ${what}:\n${log.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until(/serving MCP at (\S+)/, "URL");
  const url = /serving MCP at (\S+)/.exec(log)[1];
  await until(/\[bash\] warm: /, "warm bash pools on both engines", 2);

  // Sessions: one per session client, made before the clock starts.
  const clients = [];
  for (let i = 0; i < CLIENTS; i++) {
    const token = i % 2 ? tok["team-b"] : tok["team-a"];
    const ag = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const c = { i, token, ag, session: i < CLIENTS * SESSION_SHARE ? `s${i}` : null };
    if (c.session) {
      const r = await call(url, token, ag, "sandbox_session", { action: "create", language: "bash", name: c.session });
      if (r.status !== 200 || !r.msg?.result || r.msg.result.isError)
        throw new Error(`session ${c.session}: ${JSON.stringify(r.msg)}`);
    }
    clients.push(c);
  }
  // A warm-up round, then the baseline.
  await Promise.all(clients.map((c) => call(url, c.token, c.ag, "sandbox_execute",
    c.session ? { session: c.session, code: "echo warm" } : { language: "bash", code: "echo warm" })));
  await new Promise((r) => setTimeout(r, 2000));
  const before = procStats(srv.pid);

  console.log(`load: ${CLIENTS} clients (${clients.filter((c) => c.session).length} in sessions) for ${SECONDS} s at ${url}`);
  const lat = { oneoff: [], session: [] };
  const failures = new Map();
  const engines = {};
  let quota = 0;
  const t0 = Date.now();
  const stopAt = t0 + SECONDS * 1000;
  await Promise.all(clients.map(async (c) => {
    let k = 0;
    while (Date.now() < stopAt) {
      const args = c.session ? { session: c.session, code: `X=$((\${X:-0}+1)); echo ${c.i}:$X` } : { language: "bash", code: `echo ${c.i}:${k++}` };
      let r;
      try {
        r = await call(url, c.token, c.ag, "sandbox_execute", args);
      } catch (e) {
        failures.set(e.message, (failures.get(e.message) ?? 0) + 1);
        continue;
      }
      const o = outcome(r);
      if (o === "ok") {
        lat[c.session ? "session" : "oneoff"].push(r.ms);
        const eng = JSON.parse(r.msg.result.content[0].text).engine ?? "(a session's own)";
        engines[eng] = (engines[eng] ?? 0) + 1;
      } else if (o === "quota") quota++;
      else failures.set(o, (failures.get(o) ?? 0) + 1);
    }
  }));
  const wall = (Date.now() - t0) / 1000;
  for (const c of clients) c.ag.destroy();
  // After: the connections closed, nothing in flight.
  const settleEnd = Date.now() + 15_000;
  let after = procStats(srv.pid);
  while (after.fds > before.fds + 2 && Date.now() < settleEnd) {
    await new Promise((r) => setTimeout(r, 200));
    after = procStats(srv.pid);
  }

  const all = [...lat.oneoff, ...lat.session];
  const row = (name, xs) => console.log(`${name.padEnd(10)} n=${String(xs.length).padStart(6)}  p50 ${pct(xs, 50).toFixed(1)} ms  p90 ${pct(xs, 90).toFixed(1)} ms  p99 ${pct(xs, 99).toFixed(1)} ms  max ${Math.max(...xs).toFixed(1)} ms`);
  console.log(`calls ok ${all.length} in ${wall.toFixed(1)} s: ${(all.length / wall).toFixed(1)} calls/s; refused by a quota ${quota}; failed ${[...failures.values()].reduce((a, b) => a + b, 0)}`);
  row("one-off", lat.oneoff);
  if (lat.session.length) row("session", lat.session);
  row("all", all);
  console.log(`engines: ${JSON.stringify(engines)}`);
  console.log(`server RSS ${before.rssKiB} KiB -> ${after.rssKiB} KiB; open descriptors ${before.fds} -> ${after.fds}`);
  for (const [what, n] of failures) console.log(`FAILED x${n}: ${what}`);
  const failed = failures.size > 0;
  await cleanup();
  process.exit(failed ? 1 : 0);
}

process.on("SIGINT", async () => { await cleanup(); process.exit(130); });
main().catch(async (e) => {
  console.error(e);
  await cleanup();
  process.exit(1);
});
