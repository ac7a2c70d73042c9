"""Parse passwd-format account data and report this process's memory use.

The account data is an inline sample in /etc/passwd format, not the real file.
"""
import os
from collections import Counter
from typing import NamedTuple

SAMPLE_PASSWD = """\
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
postgres:x:109:117:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash
alice:x:1000:1000:Alice Example,Room 4,,:/home/alice:/bin/zsh
bob:x:1001:1001::/home/bob:/bin/bash
# comment lines are ignored
broken-line-without-enough-fields
"""


class Account(NamedTuple):
    name: str
    uid: int
    gid: int
    gecos: str
    home: str
    shell: str

    @property
    def full_name(self):
        return self.gecos.split(",")[0] or self.name

    @property
    def can_login(self):
        return not self.shell.endswith(("nologin", "false"))


def parse_passwd(text):
    accounts, errors = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        parts = line.split(":")
        if len(parts) != 7:
            errors.append(f"line {n}: expected 7 fields, got {len(parts)}")
            continue
        name, _pw, uid, gid, gecos, home, shell = parts
        accounts.append(Account(name, int(uid), int(gid), gecos, home, shell))
    return accounts, errors


def proc_status(path="/proc/self/status"):
    """Read selected fields from the Linux per-process status file, if present."""
    wanted = {"Name", "State", "Pid", "PPid", "Threads", "VmRSS", "VmPeak"}
    info = {}
    try:
        with open(path) as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in wanted:
                    info[key] = value.strip()
    except FileNotFoundError:
        info["note"] = f"{path} not available on this platform"
    return info


def main():
    accounts, errors = parse_passwd(SAMPLE_PASSWD)
    print(f"{'user':<10}{'uid':>6}  {'login':<6}{'home':<22}name")
    for a in sorted(accounts, key=lambda a: a.uid):
        print(f"{a.name:<10}{a.uid:>6}  {'yes' if a.can_login else 'no':<6}{a.home:<22}{a.full_name}")
    humans = [a.name for a in accounts if a.uid >= 1000]
    print("regular users:", humans)
    print("shells:", dict(Counter(a.shell for a in accounts)))
    print("uid 0 accounts:", [a.name for a in accounts if a.uid == 0])
    for e in errors:
        print("parse error:", e)

    print("\nthis process:")
    for key, value in proc_status().items():
        print(f"  {key:<8} {value}")
    print(f"  os.getpid() = {os.getpid()}, uid = {os.getuid()}")


if __name__ == "__main__":
    main()
