// run.mjs - run the test files one at a time (timing tests must not share
// the 2 cores with each other). Node >= 20.10 does it with
// --test-concurrency=1; older Node (Debian bookworm ships 18) gets one
// `node --test` per file. Exit status: non-zero if any file failed.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const dir = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith(".test.mjs")).sort();
const [major, minor] = process.versions.node.split(".").map(Number);
const opts = { cwd: dir, stdio: "inherit" };
let status = 0;

if (major > 20 || (major === 20 && minor >= 10)) {
  status = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...files], opts).status ?? 1;
} else {
  for (const f of files) {
    const r = spawnSync(process.execPath, ["--test", f], opts);
    if (r.status !== 0) status = r.status ?? 1;
  }
}
process.exit(status);
