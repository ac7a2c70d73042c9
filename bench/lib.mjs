// lib.mjs - what bench.mjs and compare.mjs share: a server through the
// official MCP client, timing, percentiles, the server's containers and
// memory.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SERVER = path.join(ROOT, "build/bin/mcp-sandbox");

export function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
export const fmt = (x) => x.toFixed(1).padStart(7);
export function line(name, xs) {
  console.log(`${name.padEnd(34)} n=${String(xs.length).padStart(4)}  p50 ${fmt(pct(xs, 50))} ms  p90 ${fmt(pct(xs, 90))} ms  p99 ${fmt(pct(xs, 99))} ms`);
  return pct(xs, 50);
}

// A server and its stderr (kept for the pool's log lines).
export async function connect(env = {}, bin = SERVER) {
  const transport = new StdioClientTransport({
    command: bin,
    args: [],
    env: { ...process.env, ...env },
    stderr: "pipe",
  });
  const srv = { transport, log: "" };
  transport.stderr.on("data", (c) => {
    srv.log += c.toString("utf8");
  });
  srv.client = new Client({ name: "bench", version: "1" });
  await srv.client.connect(transport);
  srv.pid = transport.pid;
  return srv;
}

// Polls until the server's log has at least `n` lines matching re.
export async function logged(srv, re, { n = 1, timeoutMs = 180_000 } = {}) {
  const g = new RegExp(re.source, "g");
  const end = Date.now() + timeoutMs;
  while ((srv.log.match(g) || []).length < n) {
    if (Date.now() > end) throw new Error(`the server never logged ${re} (${n}x):\n${srv.log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
export const warmRe = (lang) => new RegExp(`\\[${lang}\\] warm: `);
export const warmCount = (srv, lang) => (srv.log.match(new RegExp(warmRe(lang).source, "g")) || []).length;
// Waits until every language in langs has reported its floor ready.
export async function warm(srv, langs) {
  for (const l of langs) await logged(srv, warmRe(l));
}

// The pool sizes the server reported at start: "[python] image ..., pool 2..8 from start".
export function poolSizes(srv) {
  const out = [];
  for (const m of srv.log.matchAll(/\[([a-z0-9_-]+)\] image \S+, pool (\d+)\.\.(\d+) (from start|on first use)/g))
    out.push(`${m[1]} ${m[2]}..${m[3]}${m[4] === "from start" ? " warm at start" : ""}`);
  const g = /pool: memory budget (\d+) MiB.*after (\d+) s/.exec(srv.log);
  return `${out.join(", ")}${g ? `; budget ${g[1]} MiB, idle shrink ${g[2]} s` : ""}`;
}

// The server's containers (its owner-pid label) and the memory in them as
// `docker stats` shows it.
export function serverContainers(pid) {
  return execFileSync("docker", ["ps", "-q", "--filter", "label=org.mcp-sandbox.managed=1", "--filter", `label=org.mcp-sandbox.owner-pid=${pid}`])
    .toString().split("\n").filter(Boolean);
}
export function toMiB(s) {
  const m = /^([\d.]+)\s*([KMGT]?i?B)$/.exec(s.trim());
  const unit = { B: 1 / 2 ** 20, KiB: 1 / 1024, kB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 }[m[2]];
  return Number(m[1]) * unit;
}
export function containersMemory(ids) {
  if (!ids.length) return { n: 0, mib: 0 };
  const lines = execFileSync("docker", ["stats", "--no-stream", "--format", "{{.MemUsage}}", ...ids]).toString().split("\n").filter(Boolean);
  return { n: ids.length, mib: lines.reduce((a, l) => a + toMiB(l.split("/")[0]), 0) };
}

export async function call(client, language, code) {
  const r = await client.callTool({ name: "sandbox_execute", arguments: { language, code } });
  if (r.isError || runJson(r).exitCode !== 0) throw new Error(JSON.stringify(r).slice(0, 2000));
  return r;
}

/** A sandbox_execute result's JSON: its first (text) block. */
export function runJson(r) {
  return JSON.parse(r.content[0].text);
}

export async function timed(fn) {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function series(client, language, code, n) {
  for (let i = 0; i < 5; i++) await call(client, language, code); // warm-up
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await timed(() => call(client, language, code)));
  return xs;
}

export function memKiB(pid) {
  const r = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const get = (k) => Number(r.match(new RegExp(`^${k}:\\s+(\\d+)`, "m"))[1]);
  return { rss: get("Rss"), pss: get("Pss"), dirty: get("Private_Dirty") };
}


// A hello world per language the server offers (issue 3's table).
export const HELLO = {
  javascript: 'console.log(1)',
  typescript: 'const n: number = 1; console.log(n)',
  go: 'fmt.Println(1)',
  rust: 'println!("1");',
  // issue 3: the full ML import plus a tiny computation, served by the
  // fork server (the first call of a container pays the imports; series()
  // warms up first).
  'python-ml': 'import numpy, pandas, sklearn, torch\nprint(torch.tensor([1, 2]).sum().item())',
};
