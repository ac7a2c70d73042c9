// Review Python snippets submitted in a code-review tool and flag risky calls.
// Each snippet is just text that gets scanned; none of it is executed.
const snippets = {
  'cleanup.py': `import os
import shutil

def clean(tmp):
    # previously: os.system("rm -rf " + tmp)  -- shell injection risk!
    shutil.rmtree(tmp, ignore_errors=True)`,
  'runner.py': `import subprocess
cmd = input("command? ")
subprocess.run(cmd, shell=True)
result = eval(user_expression)`,
  'native.py': `import ctypes
libc = ctypes.CDLL("libc.so.6")
libc.ptrace(0, 0, None, None)`,
  'inspect_env.py': `with open("/proc/self/status") as f:
    print(f.read())
print(open('/proc/1/environ', 'rb').read().split(b"\\0"))`,
  'ok.py': `from pathlib import Path
total = sum(p.stat().st_size for p in Path(".").glob("*.txt"))
print(f"{total} bytes")`,
};

const checks = [
  { name: 'os.system call', re: /\bos\.system\s*\(/, level: 'high' },
  { name: 'subprocess with shell=True', re: /subprocess\.\w+\([^)]*shell\s*=\s*True/, level: 'high' },
  { name: 'eval/exec of dynamic input', re: /\b(eval|exec)\s*\((?!\s*["'])/, level: 'high' },
  { name: 'ctypes foreign calls', re: /^\s*(import ctypes|from ctypes import)/m, level: 'medium' },
  { name: 'ptrace usage', re: /\bptrace\b/, level: 'medium' },
  { name: 'reads /proc of other processes', re: /\/proc\/(?!self\/)\d+\//, level: 'medium' },
  { name: 'reads own /proc entries', re: /\/proc\/self\//, level: 'low' },
];

const stripComments = (code) => code.replace(/#[^\n]*/g, '');
const order = { high: 0, medium: 1, low: 2 };
const report = [];
for (const [file, code] of Object.entries(snippets)) {
  const body = stripComments(code);
  const findings = checks.filter((c) => c.re.test(body)).sort((a, b) => order[a.level] - order[b.level]);
  const lines = code.split('\n');
  report.push({ file, findings: findings.map((f) => ({ ...f, line: lines.findIndex((l) => f.re.test(stripComments(l))) + 1 || '?' })) });
}

for (const { file, findings } of report) {
  console.log(`${file}: ${findings.length ? `${findings.length} finding(s)` : 'clean'}`);
  for (const f of findings) console.log(`   [${f.level.toUpperCase().padEnd(6)}] line ${f.line}: ${f.name}`);
}
const counts = report.flatMap((r) => r.findings).reduce((acc, f) => ({ ...acc, [f.level]: (acc[f.level] ?? 0) + 1 }), {});
console.log('\nsummary:', JSON.stringify(counts));
console.log('note: the commented-out os.system( in cleanup.py is ignored because comments are stripped first');
