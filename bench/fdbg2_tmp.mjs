import { connect, warm, timed, pct } from "./lib.mjs";
const srv = await connect({ SANDBOX_POOL_SIZE: "1", SANDBOX_POOL_WARM_AT_START: "python", SANDBOX_SESSIONS_STATE_DIR: "/tmp/fdbg-state" });
const c = srv.client;
await warm(srv, ["python"]);
const { structuredContent: sc } = await c.callTool({ name: "sandbox_session", arguments: { action: "create", language: "python" } });
const name = sc.session.name;
const fop = async (a) => { const r = await c.callTool({ name: "sandbox_file_ops", arguments: { session: name, ...a } }); if (r.isError) throw new Error(JSON.stringify(r)); return r; };
await fop({ action: "write", path: "m", content: "x".repeat(1 << 20), overwrite: true });
console.error("READY");
const end = Date.now() + 8000; let n = 0;
while (Date.now() < end) { await fop({ action: "read", path: "m", length: 1 << 20 }); n++; }
console.error("reads", n);
await c.callTool({ name: "sandbox_session", arguments: { action: "destroy", name } });
await c.close();
