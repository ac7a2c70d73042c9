import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path


def run(cmd, **kw):
    """Run a command without a shell and return (returncode, stdout)."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=5, **kw)
    return proc.returncode, proc.stdout.strip()


def main():
    print(f"python {platform.python_version()} on {platform.system()} {platform.machine()}")
    print(f"pid={os.getpid()} cwd={os.getcwd()}")

    workdir = Path("/work/listing_demo")
    workdir.mkdir(exist_ok=True)
    for i in range(3):
        (workdir / f"file{i}.txt").write_text("line\n" * (i + 1))

    code, out = run(["ls", "-l", str(workdir)])
    print(f"\n$ ls -l {workdir}  (exit {code})\n{out}")

    if shutil.which("wc"):
        code, out = run(["wc", "-l"] + sorted(str(p) for p in workdir.glob("*.txt")))
        print(f"\n$ wc -l *.txt\n{out}")

    code, out = run(["uname", "-sr"])
    print(f"\nkernel: {out}")

    code, out = run([sys.executable, "-c", "import sys; print(sys.argv[1:])", "a b", "c"])
    print("child python saw:", out)

    proc = subprocess.run(["sort", "-r"], input="banana\napple\ncherry\n", capture_output=True, text=True)
    print("sorted reverse:", proc.stdout.split())

    failing = subprocess.run(["ls", "/definitely/not/here"], capture_output=True, text=True)
    print(f"ls of missing dir -> exit {failing.returncode}, stderr starts {failing.stderr[:30]!r}")
    try:
        subprocess.run(["false"], check=True)
    except subprocess.CalledProcessError as exc:
        print("check=True raised:", exc)

    with subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as p:
        echoed, _ = p.communicate("piped through cat\n")
    print("popen:", echoed.strip())

    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
