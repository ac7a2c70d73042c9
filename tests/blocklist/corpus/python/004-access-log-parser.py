import re
from collections import Counter, defaultdict

LOG = r'''
203.0.113.5 - - [10/Mar/2024:13:55:36 +0000] "GET /index.html HTTP/1.1" 200 2326 "-" "Mozilla/5.0"
203.0.113.5 - - [10/Mar/2024:13:55:37 +0000] "GET /static/app.js HTTP/1.1" 200 10422 "-" "Mozilla/5.0"
198.51.100.7 - - [10/Mar/2024:13:56:01 +0000] "GET /../../etc/passwd HTTP/1.1" 400 0 "-" "curl/8.0"
198.51.100.7 - - [10/Mar/2024:13:56:02 +0000] "GET /cgi-bin/test.sh?cmd=rm%20-rf%20/ HTTP/1.1" 404 153 "-" "curl/8.0"
192.0.2.44 - - [10/Mar/2024:13:57:12 +0000] "POST /api/login HTTP/1.1" 401 87 "-" "python-requests/2.31"
192.0.2.44 - - [10/Mar/2024:13:57:14 +0000] "POST /api/login HTTP/1.1" 200 412 "-" "python-requests/2.31"
203.0.113.9 - - [10/Mar/2024:13:58:40 +0000] "GET /images/logo.png HTTP/1.1" 304 0 "-" "Mozilla/5.0"
this line is garbage and should be skipped
198.51.100.7 - - [10/Mar/2024:13:59:03 +0000] "GET /proc/self/environ HTTP/1.1" 404 153 "-" "curl/8.0"
'''

LINE_RE = re.compile(
    r'(?P<ip>\d{1,3}(?:\.\d{1,3}){3}) \S+ \S+ \[(?P<ts>[^\]]+)\] '
    r'"(?P<method>[A-Z]+) (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3}) (?P<size>\d+) '
    r'"[^"]*" "(?P<agent>[^"]*)"'
)

# Paths that scanners typically probe for; we only report them.
SUSPICIOUS = [re.compile(p) for p in (r"\.\./", r"/etc/passwd", r"/proc/self/", r"rm%20-rf")]


def parse(lines):
    for lineno, line in enumerate(lines, 1):
        m = LINE_RE.match(line)
        if m:
            rec = m.groupdict()
            rec["status"] = int(rec["status"])
            rec["size"] = int(rec["size"])
            yield rec
        elif line.strip():
            print(f"skip line {lineno}: {line[:40]!r}")


def main():
    records = list(parse(LOG.strip().splitlines()))
    print(f"parsed {len(records)} requests")

    status = Counter(r["status"] for r in records)
    bytes_by_ip = defaultdict(int)
    for r in records:
        bytes_by_ip[r["ip"]] += r["size"]

    print("\nstatus codes:")
    for code, n in sorted(status.items()):
        print(f"  {code}: {'#' * n} ({n})")

    print("\nbytes per client:")
    for ip, total in sorted(bytes_by_ip.items(), key=lambda kv: -kv[1]):
        print(f"  {ip:<15} {total:>7}")

    flagged = [r for r in records if any(p.search(r["path"]) for p in SUSPICIOUS)]
    print(f"\n{len(flagged)} suspicious probes:")
    for r in flagged:
        print(f"  {r['ip']} {r['method']} {r['path']} -> {r['status']}")

    error_rate = sum(1 for r in records if r["status"] >= 400) / len(records)
    print(f"\nerror rate: {error_rate:.0%}")


if __name__ == "__main__":
    main()
