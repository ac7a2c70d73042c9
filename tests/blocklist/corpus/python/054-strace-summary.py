"""Summarise an strace log captured from a build step (the log is an inline sample)."""
import re
from collections import Counter, defaultdict

STRACE_LOG = r"""
1201  execve("/usr/bin/make", ["make", "-j2"], 0x7ffd5f0 /* 24 vars */) = 0
1201  openat(AT_FDCWD, "Makefile", O_RDONLY) = 3
1201  read(3, "all: app\n\napp: main.o\n\tcc -o app"..., 4096) = 88
1201  close(3) = 0
1201  clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 1202
1202  execve("/usr/bin/cc", ["cc", "-c", "main.c"], 0x55d0 /* 24 vars */) = 0
1202  openat(AT_FDCWD, "main.c", O_RDONLY) = 3
1202  openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 4
1202  openat(AT_FDCWD, "missing.h", O_RDONLY) = -1 ENOENT (No such file or directory)
1202  mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f3a1c000000
1202  write(1, "compiling main.c\n", 17) = 17
1202  ptrace(PTRACE_TRACEME) = -1 EPERM (Operation not permitted)
1202  unshare(CLONE_NEWUSER) = -1 EPERM (Operation not permitted)
1202  exit_group(0) = ?
1201  wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 1202
1201  openat(AT_FDCWD, "app", O_WRONLY|O_CREAT|O_TRUNC, 0755) = 3
1201  write(3, "\177ELF\2\1\1", 7) = 7
1201  exit_group(0) = ?
"""

LINE = re.compile(r'^(?P<pid>\d+)\s+(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<ret>-?\d+|\?|0x[0-9a-f]+)(?:\s+(?P<errno>E[A-Z]+))?')


def parse(log):
    for raw in log.strip().splitlines():
        m = LINE.match(raw)
        if m:
            yield m.groupdict()


def main():
    calls = list(parse(STRACE_LOG))
    by_name = Counter(c["call"] for c in calls)
    per_pid = defaultdict(Counter)
    failures = []
    opened = []
    for c in calls:
        per_pid[c["pid"]][c["call"]] += 1
        if c["errno"]:
            failures.append(c)
        if c["call"] == "openat":
            path = re.search(r'"([^"]*)"', c["args"]).group(1)
            opened.append((c["pid"], path, c["ret"]))

    print(f"{len(calls)} syscalls from {len(per_pid)} processes")
    print("\nsyscall counts:")
    for name, n in by_name.most_common():
        print(f"  {name:<12} {n}")
    print("\nfiles opened:")
    for pid, path, ret in opened:
        print(f"  [{pid}] {path:<18} -> {'fd ' + ret if not ret.startswith('-') else 'failed'}")
    print("\nfailed calls:")
    for c in failures:
        print(f"  [{c['pid']}] {c['call']}: {c['errno']}")
    execs = [re.search(r'"([^"]+)"', c["args"]).group(1) for c in calls if c["call"] == "execve"]
    print("\nprograms executed:", execs)
    assert by_name["openat"] == 5 and len(failures) == 3


if __name__ == "__main__":
    main()
