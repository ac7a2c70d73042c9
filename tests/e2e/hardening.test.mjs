// What the user's code may and may not do inside the container: identity
// and capabilities, network, and the filesystem.
import assert from 'node:assert/strict';
import { e2e } from './lib/server.mjs';
import { parseStatus, section } from './lib/sandbox.mjs';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { bridgeGateway, dockerGet } from './lib/docker.mjs';
import { waitFor } from './lib/wait.mjs';

const NO_CAPS = '0000000000000000';
// A warm container for the language a test uses, on a server the file's
// tests of that language share (the start-up check reads a server's log:
// it starts its own).
const PYTHON_ONLY = { SANDBOX_BASH_POOL_SIZE: '0' };
const BASH_ONLY = { SANDBOX_PYTHON_POOL_SIZE: '0' };

function assertUnprivileged(st, who) {
  assert.equal(st.Uid?.split(/\s+/).join(' '), '1000 1000 1000 1000', `${who}: real/effective/saved/fs uid`);
  assert.equal(st.Gid?.split(/\s+/).join(' '), '1000 1000 1000 1000', `${who}: gids`);
  assert.equal(st.CapEff, NO_CAPS, `${who}: CapEff`);
  assert.equal(st.CapPrm, NO_CAPS, `${who}: CapPrm`);
  assert.equal(st.CapInh, NO_CAPS, `${who}: CapInh`);
  assert.equal(st.CapBnd, NO_CAPS, `${who}: CapBnd`);
  assert.equal(st.CapAmb, NO_CAPS, `${who}: CapAmb`);
  assert.equal(st.NoNewPrivs, '1', `${who}: NoNewPrivs`);
  assert.equal(st.Seccomp, '2', `${who}: a seccomp filter is in force`);
}

e2e('python runs as uid 1000 with no capabilities and no_new_privs', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  const r = await s.execute(
    'python',
    'import os\nprint(os.getuid(), os.geteuid(), os.getgid())\nprint(open("/proc/self/status").read())',
  );
  assert.equal(r.exitCode, 0, r.stderr);
  const [ids, ...rest] = r.stdout.split('\n');
  assert.equal(ids, '1000 1000 1000');
  assertUnprivileged(parseStatus(rest.join('\n')), 'python');
});

e2e('bash runs as uid 1000 with no capabilities and no_new_privs', {}, async (h) => {
  const s = await h.shared({ env: BASH_ONLY });
  // $$ is the shell running the code, not a child of it.
  const r = await s.execute('bash', 'echo "--- id ---"; id -u; id -un\necho "--- status ---"; cat /proc/$$/status');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(section(r.stdout, 'id'), '1000\nsandbox\n');
  assertUnprivileged(parseStatus(section(r.stdout, 'status')), 'bash');
  // And the sandbox user cannot get root back.
  const su = await s.execute('bash', 'su -c id root </dev/null 2>&1; echo "rc=$?"');
  assert.doesNotMatch(su.stdout, /uid=0/);
  assert.match(su.stdout, /rc=[1-9]/);
});

// No packet is sent by these checks even if the sandbox were broken: a UDP
// connect() only asks the kernel for a route. (This machine must not send
// traffic to outside addresses, so no TCP connect to a public host here.)
e2e('python has no network: no interface but lo, no route out', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  // This machine's Docker bridge gateway, as IPv4 and IPv4-mapped IPv6.
  const gw = await bridgeGateway();
  const code = `
import os, socket, errno
print("ifaces", sorted(os.listdir("/sys/class/net")))
routes = open("/proc/net/route").read().splitlines()[1:]
print("routes", len(routes))
for fam, addr in ((socket.AF_INET, ("${gw}", 53)), (socket.AF_INET6, ("::ffff:${gw}", 53))):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    try:
        s.connect(addr)
        print("connect", fam.name, "OK")
    except OSError as e:
        print("connect", fam.name, errno.errorcode.get(e.errno, e.errno))
`;
  const r = await s.execute('python', code);
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], "ifaces ['lo']");
  assert.equal(lines[1], 'routes 0');
  assert.match(lines[2], /^connect AF_INET (ENETUNREACH|EHOSTUNREACH)$/);
  assert.match(lines[3], /^connect AF_INET6 (ENETUNREACH|EHOSTUNREACH|EADDRNOTAVAIL|EAFNOSUPPORT)$/);
  assert.equal(lines.length, 4);
});

e2e('bash has no network: only lo in /sys/class/net', {}, async (h) => {
  const s = await h.shared({ env: BASH_ONLY });
  const r = await s.execute('bash', 'ls /sys/class/net; echo "--- route ---"; tail -n +2 /proc/net/route');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, 'lo\n--- route ---\n');
});

e2e('the root filesystem is read-only; /work and /tmp are writable', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  const code = `
import errno
for p in ("/etc/x", "/usr/x", "/x", "/opt/x", "/var/x", "/work/x", "/tmp/x"):
    try:
        with open(p, "w") as f:
            f.write("data")
        print(p, "written", open(p).read())
    except OSError as e:
        print(p, errno.errorcode[e.errno])
`;
  const r = await s.execute('python', code);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    '/etc/x EROFS',
    '/usr/x EROFS',
    '/x EROFS',
    '/opt/x EROFS',
    '/var/x EROFS',
    '/work/x written data',
    '/tmp/x written data',
  ]);
});

e2e('/work is the writable, exec-capable cwd; /tmp is noexec', {}, async (h) => {
  const s = await h.shared({ env: BASH_ONLY });
  const code = `
echo "--- cwd ---"; pwd
printf '#!/bin/sh\\necho ran from $(dirname "$0")\\n' > /work/s.sh
chmod +x /work/s.sh
echo "--- work ---"; /work/s.sh; echo "rc=$?"
cp /work/s.sh /tmp/s.sh; chmod +x /tmp/s.sh
echo "--- tmp ---"; /tmp/s.sh 2>/dev/null; echo "rc=$?"
echo "--- end ---"
`;
  const r = await s.execute('bash', code);
  assert.equal(section(r.stdout, 'cwd'), '/work\n');
  assert.equal(section(r.stdout, 'work'), 'ran from /work\nrc=0\n');
  assert.equal(section(r.stdout, 'tmp'), 'rc=126\n', 'executing from /tmp is refused');
});

e2e('what a sandbox sees of the host: no kernel command line, boot id or cgroup path; the agent binary is unreadable', {}, async (h) => {
  const s = await h.shared({ env: BASH_ONLY });
  // The host has them all.
  assert.notEqual(fs.readFileSync('/proc/cmdline', 'utf8').trim(), '');
  assert.notEqual(fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), '');
  const r = await s.execute('bash', [
    'echo "cmdline=[$(cat /proc/cmdline)]"',
    'echo "boot_id=[$(cat /proc/sys/kernel/random/boot_id)]"',
    'echo "cgroup=[$(cut -d: -f3 /proc/self/cgroup | sort -u | tr "\\n" " ")]"',
    'cat /opt/sbx/agent >/dev/null 2>&1; echo "agent_read=$?"',
    'echo "kcore=[$(head -c 16 /proc/kcore 2>/dev/null | wc -c)]"',
  ].join('\n'));
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, 'cmdline=[]\nboot_id=[]\ncgroup=[/ ]\nagent_read=1\nkcore=[0]\n');
});

e2e('the start-up checks say whether the sandbox uid is an account of this host', {}, async (h) => {
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0' } });
  let account = '';
  try {
    account = execFileSync('getent', ['passwd', '1000'], { encoding: 'utf8' }).split(':')[0];
  } catch { /* no such account */ }
  const info = (await dockerGet('/info')).body;
  const remaps = info.SecurityOptions.some((o) => o === 'name=userns' || o === 'name=rootless');
  const line = await waitFor(() => s.stderr.match(/checks: (the sandbox user .*|the engine remaps .*)$/m)?.[1], { timeoutMs: 20_000, what: 'the uid check' });
  if (remaps) assert.match(line, /^the engine remaps user namespaces/);
  else if (account) assert.match(line, new RegExp(`^the sandbox user \\(uid 1000\\) is the host account '${account}' .*userns-remap`));
  else assert.equal(line, 'the sandbox user (uid 1000) is no account of this host');
});
