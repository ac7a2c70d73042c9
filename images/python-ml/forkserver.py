#!/usr/bin/python3 -Bu
"""The python-ml fork server ("zygote"), installed as /opt/sbx/zygote.

sbx-agent starts this once per container, through the same spawn path as
user code (uid 1000, no capabilities, no_new_privs, the request's seccomp
deny list), with fd 3 a SOCK_SEQPACKET socket to the agent and fds 0-2 the
pipes of the execution that started it (so an import failure shows up in
that execution's stderr). It imports the heavy modules once, then serves:

  agent -> zygote  one message per execution, SCM_RIGHTS [stdin, stdout,
                   stderr] plus a memfd holding the source file when there is
                   one; payload NUL-separated:
                   b"sbx1", argc, envc, file_name (may be empty), argv..., env...
  zygote -> agent  b"pid <pid>" once the child is forked,
                   b"exit <pid> <wait status>" once it is reaped.

Each execution is a fresh forked child: new session, its own fds, the
request's environment, every random generator re-seeded from the kernel,
then the program runs as __main__ the way `python3 main.py` would run it.
The agent kills the child's whole process population afterwards; this
process is spared (and restarted by the agent if it dies).

Keep the state of this process minimal: nothing the user sends is imported
or evaluated here, only in the children.
"""
import os
import sys

# Thread pools must not exist before fork(): a forked child gets only the
# forking thread, and a pool's locks may be held by threads that are gone.
for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("MPLBACKEND", "Agg")
_MPLDIR = os.environ.setdefault("MPLCONFIGDIR", "/tmp/matplotlib")
_FONT_CACHE = "/opt/sbx/matplotlib"


def _prepare_mpl_dir():
    """Writable config dir with the font list built at image build time."""
    import shutil
    try:
        os.makedirs(_MPLDIR, mode=0o700, exist_ok=True)
        for name in os.listdir(_FONT_CACHE):
            dst = os.path.join(_MPLDIR, name)
            if name.startswith("fontlist-") and not os.path.exists(dst):
                shutil.copyfile(os.path.join(_FONT_CACHE, name), dst)
    except OSError:
        pass  # matplotlib rebuilds the list; slower, still correct


_prepare_mpl_dir()

import atexit  # noqa: E402
import builtins  # noqa: E402
import ctypes  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import types  # noqa: E402

# The heavy imports this server exists for, comma-separated; the agent's
# tests set a light list. Importing is all: no torch op runs here, so no
# intra-op thread pool starts.
PRELOAD = os.environ.get(
    "SBX_ZYGOTE_PRELOAD",
    "numpy,numpy.random,pandas,scipy,scipy.stats,sklearn,"
    "sklearn.linear_model,matplotlib,matplotlib.pyplot,seaborn,torch,torch.nn")
for _name in filter(None, (n.strip() for n in PRELOAD.split(","))):
    importlib.import_module(_name)

PR_SET_DUMPABLE = 4
_libc = ctypes.CDLL(None, use_errno=True)
AGENT_FD = 3
WORKDIR = "/work"
MAX_MSG = 256 * 1024
MAX_FDS = 4


def _threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


# --- the child -----------------------------------------------------------

def _std_streams():
    """Fresh sys.std* on fds 0-2, as `python3 -u` makes them."""
    enc = "utf-8"
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=enc,
        errors="strict")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding=enc, errors="strict",
        write_through=True)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding=enc,
        errors="backslashreplace", write_through=True)


def _write_file(name, memfd):
    """As the user, like the agent's own write: never through a symlink."""
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        pass
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                 os.O_CLOEXEC, 0o644)
    try:
        off = 0
        while True:
            chunk = os.pread(memfd, 1 << 20, off)
            if not chunk:
                break
            off += len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        os.fchmod(fd, 0o644)
    finally:
        os.close(fd)


def _reseed():
    """No two executions share random state (they are forks of one parent)."""
    random.seed()
    np_random = sys.modules.get("numpy.random")
    if np_random is not None:
        np_random.seed()  # the legacy global RandomState, from the kernel
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
    # Modules imported later by the child seed themselves freshly.


def _parse_argv(argv):
    """What `python3 [opts] ...` would run: ("file", path, args),
    ("code", src, args), ("module", name, args), or None for anything
    else (which is exec'd as is)."""
    if not argv or not os.path.basename(argv[0]).startswith("python3"):
        return None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-c", "-m"):
            if i + 1 >= len(argv):
                return None
            kind = "code" if a == "-c" else "module"
            return kind, argv[i + 1], argv[i + 2:]
        if a == "--":
            i += 1
            break
        if a.startswith("-") and a != "-":
            # Flags that this interpreter already has (-u -B) or that make
            # no difference to a fresh child; anything else is exec'd.
            if all(c in "uBsEq" for c in a[1:]):
                i += 1
                continue
            return None
        break
    if i >= len(argv) or argv[i] == "-":
        return None
    return "file", argv[i], argv[i + 1:]


def _exit_code(exc):
    """The interpreter's handling of SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def _finish(status):
    try:
        import threading
        threading._shutdown()
    except Exception:
        pass
    try:
        atexit._run_exitfuncs()
    except Exception:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    os._exit(status)


def _run(kind, what, args):
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    if kind == "file":
        path = os.path.join(WORKDIR, what)
        sys.argv = [what] + list(args)
        sys.path[0] = os.path.dirname(os.path.abspath(path))
        # Absolute, as CPython >= 3.9 makes a script's __file__.
        main.__file__ = os.path.abspath(path)
        main.__cached__ = None
        with open(path, "rb") as f:
            code = compile(f.read(), main.__file__, "exec", dont_inherit=True)
    elif kind == "code":
        sys.argv = ["-c"] + list(args)
        sys.path[0] = ""
        code = compile(what, "<string>", "exec", dont_inherit=True)
    else:
        import runpy
        sys.argv = [what] + list(args)
        sys.path[0] = os.getcwd()
        code = None
    try:
        if code is None:
            runpy._run_module_as_main(what, alter_argv=True)
        else:
            exec(code, main.__dict__)
    except SystemExit as e:
        _finish(_exit_code(e))
    except BaseException:
        t, v, tb = sys.exc_info()
        # Drop this function's frame: the traceback reads as if the
        # interpreter had run the file. (3.11's hook prints the
        # exception's own __traceback__, so that is what must change.)
        if tb is not None:
            tb = tb.tb_next
            v = v.with_traceback(tb)
        sys.excepthook(t, v, tb)
        _finish(1)
    _finish(0)


def _child(sock, fds, file_name, argv, env):
    sock.close()  # the child never talks to the agent
    os.setsid()
    for i in range(3):
        os.dup2(fds[i], i)
    for fd in set(fds[:3]):
        if fd > 2:
            os.close(fd)
    memfd = fds[3] if len(fds) > 3 else -1
    # Ordinary process again: /proc/self/fd readable, ptrace by its own
    # children possible (this server stays non-dumpable).
    _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGALRM):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as CPython starts
    _std_streams()
    try:
        os.chdir(WORKDIR)
        if file_name:
            _write_file(file_name, memfd)
    except OSError as e:
        os.write(2, ("sbx-agent: write %s: %s\n" %
                     (file_name, e.strerror)).encode())
        os._exit(127)
    if memfd >= 0:
        os.close(memfd)
    os.environ.clear()
    os.environ.update(env)
    try:
        os.makedirs(os.environ.get("MPLCONFIGDIR", _MPLDIR), mode=0o700,
                    exist_ok=True)
    except OSError:
        pass
    try:
        import site
        user_site = site.getusersitepackages()
        if os.path.isdir(user_site) and user_site not in sys.path:
            site.addsitedir(user_site)  # packages installed with pip --user
    except Exception:
        pass
    _reseed()
    parsed = _parse_argv(argv)
    if parsed is None:
        try:
            os.execvpe(argv[0], argv, env)
        except OSError as e:
            os.write(2, ("sbx-agent: exec %s: %s\n" %
                         (argv[0], e.strerror)).encode())
            os._exit(127)
    _run(*parsed)


# --- the server ----------------------------------------------------------

def _recv(sock):
    """One request: (fds, file_name, argv, env); None at EOF; raises
    ValueError on a malformed one (its fds closed)."""
    msg, anc, flags, _ = sock.recvmsg(MAX_MSG,
                                      socket.CMSG_SPACE(MAX_FDS * 4))
    fds = []
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            n = len(data) // 4
            fds.extend(int.from_bytes(data[i * 4:i * 4 + 4], sys.byteorder,
                                      signed=True) for i in range(n))
    if not msg and not fds:
        return None
    try:
        parts = msg.split(b"\0")
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or \
                parts[0] != b"sbx1" or len(fds) < 3:
            raise ValueError("malformed request")
        argc, envc = int(parts[1]), int(parts[2])
        file_name = os.fsdecode(parts[3])
        argv = [os.fsdecode(p) for p in parts[4:4 + argc]]
        env = {}
        for p in parts[4 + argc:4 + argc + envc]:
            k, _, v = os.fsdecode(p).partition("=")
            env[k] = v
        if len(argv) != argc or not argv or (file_name and len(fds) < 4):
            raise ValueError("malformed request")
    except (ValueError, IndexError):
        for fd in fds:
            os.close(fd)
        raise ValueError("malformed request")
    return fds, file_name, argv, env


def _serve(sock):
    while True:
        try:
            req = _recv(sock)
        except ValueError:
            sock.send(b"bad")
            continue
        if req is None:
            return
        fds, file_name, argv, env = req
        pid = os.fork()
        if pid == 0:
            try:
                _child(sock, fds, file_name, argv, env)
            finally:
                os._exit(127)
        for fd in fds:
            os.close(fd)
        sock.send(b"pid %d" % pid)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except ChildProcessError:
                status = 9  # someone else reaped it: report a kill
                break
            except InterruptedError:
                continue
        sock.send(b"exit %d %d" % (pid, status))


def main():
    sock = socket.socket(fileno=AGENT_FD)
    # Non-dumpable: the executions (same uid) can neither ptrace this
    # process nor read its memory or fds through /proc.
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    n = _threads()
    if n > 1:
        print("sbx-zygote: warning: %d threads before fork" % n,
              file=sys.stderr)
    # Let go of the first execution's pipes (they were only for import
    # errors); children get their own fds with every request.
    null = os.open(os.devnull, os.O_RDWR)
    for i in range(3):
        os.dup2(null, i)
    os.close(null)
    try:
        _serve(sock)
    except (BrokenPipeError, ConnectionResetError):
        pass


if __name__ == "__main__":
    main()
