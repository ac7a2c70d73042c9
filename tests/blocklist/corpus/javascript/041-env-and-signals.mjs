// Read typed settings from environment variables and shut down gracefully on signals.
import os from 'node:os';

const schema = {
  APP_PORT: { type: 'int', default: 8080, min: 1, max: 65535 },
  APP_DEBUG: { type: 'bool', default: false },
  APP_NAME: { type: 'string', default: 'demo' },
  APP_ALLOWED_HOSTS: { type: 'list', default: ['localhost'] },
  APP_TIMEOUT_MS: { type: 'int', default: 500, min: 10 },
};

function readConfig(env) {
  const cfg = {};
  const problems = [];
  for (const [key, spec] of Object.entries(schema)) {
    const raw = env[key];
    if (raw === undefined || raw === '') { cfg[key] = spec.default; continue; }
    switch (spec.type) {
      case 'int': {
        const n = Number.parseInt(raw, 10);
        if (!/^-?\d+$/.test(raw) || n < (spec.min ?? -Infinity) || n > (spec.max ?? Infinity)) problems.push(`${key}=${JSON.stringify(raw)} is out of range, using ${spec.default}`), (cfg[key] = spec.default);
        else cfg[key] = n;
        break;
      }
      case 'bool': cfg[key] = /^(1|true|yes|on)$/i.test(raw); break;
      case 'list': cfg[key] = raw.split(/\s*,\s*/).filter(Boolean); break;
      default: cfg[key] = raw;
    }
  }
  return { cfg, problems };
}

// Pretend the deployment set a few of these (copy, so the real environment is untouched).
const env = { ...process.env, APP_PORT: '9000', APP_DEBUG: 'yes', APP_ALLOWED_HOSTS: 'localhost, example.com ,', APP_TIMEOUT_MS: '5' };
const { cfg, problems } = readConfig(env);
console.log('config:', cfg);
if (problems.length) console.log('warnings:\n' + problems.map((p) => `  - ${p}`).join('\n'));
console.log(`PATH has ${(process.env.PATH ?? '').split(':').length} entries; HOME=${process.env.HOME ?? '(unset)'}; user=${os.userInfo().username}`);

// Graceful shutdown: a fake server "handles requests" on an interval until a signal arrives.
let handled = 0;
const ticker = setInterval(() => { handled++; }, 5);
let shuttingDown = false;
function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log(`received ${signal}, draining...`);
  clearInterval(ticker);
  setTimeout(() => {
    console.log(`handled ${handled > 0 ? 'some' : 'no'} requests before ${signal}; bye`);
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGUSR2');
  }, 20);
}
process.on('SIGTERM', shutdown);
process.on('SIGUSR2', shutdown);

// Simulate an orchestrator stopping us: send SIGUSR2 to our own process after a moment.
setTimeout(() => process.kill(process.pid, 'SIGUSR2'), 50);
