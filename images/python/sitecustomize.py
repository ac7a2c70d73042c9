# sitecustomize for the sandbox's python image (installed over Debian's).
#
# matplotlib wants a writable cache directory and builds its font list there
# on first use, which takes seconds and prints a warning. The image ships the
# font list built at image build time in /opt/sbx/matplotlib; the first
# `import matplotlib` of a run copies it into $MPLCONFIGDIR (default
# /tmp/matplotlib, wiped after every call). Nothing happens, and nothing is
# imported, for programs that do not use matplotlib.
import os
import sys

_SRC = "/opt/sbx/matplotlib"


class _MatplotlibCache:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "matplotlib":
            return None
        sys.meta_path.remove(_MatplotlibCache)
        dst = os.environ.setdefault("MPLCONFIGDIR", "/tmp/matplotlib")
        try:
            os.makedirs(dst, exist_ok=True)
            for f in os.listdir(_SRC):
                target_path = os.path.join(dst, f)
                if not os.path.exists(target_path):
                    with open(os.path.join(_SRC, f), "rb") as i, open(target_path, "wb") as o:
                        o.write(i.read())
        except OSError:
            pass
        return None


if os.path.isdir(_SRC):
    sys.meta_path.insert(0, _MatplotlibCache)


# plt.show() has no display here (the Agg backend). Instead of doing
# nothing it saves every open figure as /work/figure-<n>.png (figure-<n>-2.png
# and so on when that name is taken) and closes them, so code written for a
# notebook leaves its plots as artifacts of the call. Nothing is imported,
# and nothing changes, for programs that do not import matplotlib.pyplot.
_WORK = "/work"


def _patch_show(plt):
    orig = plt.show

    def show(*args, **kwargs):
        import matplotlib

        if matplotlib.get_backend().lower() != "agg":
            return orig(*args, **kwargs)
        for num in plt.get_fignums():
            base = os.path.join(_WORK, "figure-%d" % num)
            path, k = base + ".png", 1
            while os.path.exists(path):
                k += 1
                path = "%s-%d.png" % (base, k)
            plt.figure(num).savefig(path)
        plt.close("all")
        return None

    show.__doc__ = orig.__doc__
    plt.show = show


class _PyplotShow:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "matplotlib.pyplot":
            return None
        sys.meta_path.remove(_PyplotShow)
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch_show(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _PyplotShow)


# A pre-started interpreter (docs/prestart.md). The agent starts the next
# one-off call's python before the call arrives, with that call's argv and
# environment, and this is where it waits: the start-up above is done, the
# program itself is not read yet. Closing fd 5 tells the agent it waits;
# fd 3 then brings "sbx1", the stdin mode and the added arguments, and
# python goes on to run /work/main.py exactly as a python started then
# would. Only such a process has the agent (PID 1) as its parent, leads its
# own session and has pipes on fds 3 (read), 4 (read) and 5 (write): the
# session interpreter's fd 3 is for writing and it has no fd 5, the fork
# server's fd 3 is a socket, a program's own processes do not have the
# agent as their parent or lead no session, so for them this does nothing.
def _sbx_access(fd):
    # O_ACCMODE of fd, from /proc/self/fdinfo ("flags:" is octal).
    with open("/proc/self/fdinfo/%d" % fd) as f:
        for line in f:
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & 3
    return -1


def _sbx_prestart():
    if os.getppid() != 1 or os.getsid(0) != os.getpid():
        return
    try:
        if any(os.fstat(fd).st_mode & 0o170000 != 0o010000 for fd in (3, 4, 5)):
            return
        if [_sbx_access(fd) for fd in (3, 4, 5)] != [0, 0, 1]:
            return
        os.close(5)
    except OSError:
        return
    data = b""
    while True:
        chunk = os.read(3, 65536)
        if not chunk:
            break
        data += chunk
    os.close(3)
    parts = data.split(b"\0")
    if len(parts) < 3 or parts[0] != b"sbx1" or parts[-1] != b"":
        os._exit(127)  # the agent stopped it without a program
    if parts[1] == b"stdin":
        import io

        # The program's stdin is the pipe on fd 4. sys.stdin was made
        # for /dev/null; make it again the way python's start-up does,
        # so that it tells what it is (seekable(), tell()) as then.
        os.dup2(4, 0)
        old = sys.stdin
        buf = io.open(0, "rb", -1, None, None, None, False)
        buf.raw.name = "<stdin>"
        new = io.TextIOWrapper(
            buf, old.encoding, old.errors, "\n", old.line_buffering, old.write_through
        )
        new.mode = "r"
        sys.stdin = sys.__stdin__ = new
    os.close(4)
    args = [os.fsdecode(a) for a in parts[2:-1]]
    sys.argv.extend(args)
    sys.orig_argv.extend(args)


_sbx_prestart()
del _sbx_prestart, _sbx_access
