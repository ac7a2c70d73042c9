#!/usr/bin/env python3
"""Drives a session interpreter the way the agent does (agent/repl.c): the
checks of the python and python-ml interpreter (images/python/repl.py),
which CI runs in the images (tests/repl/README.md), and tools to develop it
by hand. The contract is docs/session-interpreters.md: requests on the
interpreter's fd 0, stdout and stderr on 1 and 2, replies on 3, SIGINT to
its process group.

    drive.py run [-c CODE]... [--stdin TEXT] [--interrupt-after S] -- CMD...
        each -c is one call; prints every call's status, stdout, stderr
    drive.py check [--ml | --ml-only] [--cwd DIR] -- CMD...
        the python interpreter's behaviours (images/python/repl.py),
        --ml adds the python-ml ones (pandas, preloaded torch); ends with
        "checks: N passed, M failed", exit 1 if one failed or none ran
    drive.py bench [-n N] [--code CODE] -- CMD...
        start-up time and per-call round trips
    drive.py stub
        the least a python interpreter can be (answers every request at
        once, runs nothing): `bench -- python3 drive.py stub` measures
        this harness and the pipes, to subtract from a real one

Interrupts in the checks go out when the cell got where the check means
them to land (a marker on its stdout, the interpreter's state in /proc),
never after a fixed delay. For example, from the repository root:

    tests/repl/drive.py check -- python3 -u -B images/python/repl.py

and in the image, as the agent starts it and as CI does (the tree's
repl.py mounted over the image's):

    tests/repl/repl_test.sh python       # or python-ml

Only the standard library; runs with the image's python3 too.
"""
import argparse
import array
import fcntl
import os
import select
import selectors
import signal
import statistics
import sys
import tempfile
import termios
import time


class Result:
    def __init__(self, status, out, err, seconds):
        self.status = status    # None: the interpreter died or timed out
        self.out = out          # bytes
        self.err = err
        self.seconds = seconds  # request written to reply read

    def __repr__(self):
        return "Result(status=%r, out=%r, err=%r, %.2f ms)" % (
            self.status, self.out, self.err, self.seconds * 1e3)


def _inheritable_fds():
    fds = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                fds.append(fd)
        except OSError:
            pass  # the directory listing's own fd, closed by now
    return fds


def _unread(fd):
    """Bytes in the pipe of fd (either end) that nobody has read yet."""
    n = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, n)
    return n[0]


class Interpreter:
    """One interpreter process with the agent's fd layout, in its own
    session and process group."""

    def __init__(self, argv, env=None):
        req_r, self.req = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.rep, rep_w = os.pipe()
        # The reply pipe must be the child's fd 3, which subprocess's
        # pass_fds cannot arrange (it keeps numbers); posix_spawn's dup2
        # actions can. They run in order, so moving the reply end off 3
        # first keeps the earlier actions from clobbering it.
        if rep_w <= 3:
            moved = os.dup(rep_w)
            os.close(rep_w)
            rep_w = moved
        # Like the agent, pass nothing else: close whatever this process
        # inherited (the pipes above are close-on-exec already).
        actions = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds()]
        actions += [(os.POSIX_SPAWN_DUP2, req_r, 0),
                   (os.POSIX_SPAWN_DUP2, out_w, 1),
                   (os.POSIX_SPAWN_DUP2, err_w, 2),
                   (os.POSIX_SPAWN_DUP2, rep_w, 3)]
        self.pid = os.posix_spawnp(argv[0], argv,
                                   env if env is not None else os.environ,
                                   file_actions=actions, setsid=True)
        for fd in (req_r, out_w, err_w, rep_w):
            os.close(fd)
        self.out, self.err = out_r, err_r
        for fd in (self.req, self.out, self.err, self.rep):
            os.set_blocking(fd, False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.out, selectors.EVENT_READ, "out")
        self.sel.register(self.err, selectors.EVENT_READ, "err")
        self.sel.register(self.rep, selectors.EVENT_READ, "rep")
        self.seq = 0
        self.rep_buf = b""
        self.status = None  # wait status once reaped

    def interrupt(self):
        try:
            os.killpg(self.pid, signal.SIGINT)
        except ProcessLookupError:
            pass

    # What the interpreter is doing, from /proc (it is this process's
    # child, so its entries are readable): how the harness waits for the
    # interpreter to be where a check needs it instead of for the clock.

    def sleeping(self):
        """The main thread is blocked in the kernel (state S)."""
        try:
            with open("/proc/%d/stat" % self.pid, "rb") as f:
                stat = f.read()
        except OSError:
            return False
        return stat[stat.rindex(b")") + 2:][:1] == b"S"

    def sigint_pending(self):
        """A SIGINT was sent to the process and no thread has taken it."""
        mask = 1 << (signal.SIGINT - 1)
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith(("SigPnd:", "ShdPnd:")) and \
                            int(line.split()[1], 16) & mask:
                        return True
        except OSError:
            pass
        return False

    def has_child(self, comm):
        """A child of the interpreter runs the program named comm."""
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            name_end = stat.rindex(b")")
            fields = stat[name_end + 2:].split()
            if int(fields[1]) == self.pid and \
                    stat[stat.index(b"(") + 1:name_end] == comm:
                return True
        return False

    def wait_until(self, cond, what, timeout=30.0):
        """Polls cond() with a deadline while reading (and dropping) what
        the interpreter writes; raises if it does not come true."""
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise TimeoutError("not within %.0f s: %s" % (timeout, what))
            self._pump([], [], None, time.monotonic() + 0.001)

    def _read(self, fd, sink):
        """Reads fd until it would block; False at end of file."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                self.sel.unregister(fd)
                return False
            sink.append(chunk)

    def drain(self, timeout=0.0):
        """Output written while no call runs (start-up, stragglers)."""
        out, err = [], []
        self._pump(out, err, None, time.monotonic() + timeout)
        return b"".join(out), b"".join(err)

    def _pump(self, out, err, want_seq, deadline, interrupt_at=None,
              interrupt_when=None, writable=False):
        """Reads until the reply to want_seq (returns its status) or the
        deadline (returns None); with writable, until the request pipe
        takes more (returns "writable"). interrupt_when(stdout so far) is
        polled every millisecond until it holds, then SIGINT is sent."""
        if writable:
            self.sel.register(self.req, selectors.EVENT_WRITE, "req")
        try:
            return self._pump_loop(out, err, want_seq, deadline,
                                   interrupt_at, interrupt_when)
        finally:
            if writable:
                self.sel.unregister(self.req)

    def _pump_loop(self, out, err, want_seq, deadline, interrupt_at,
                   interrupt_when):
        while True:
            now = time.monotonic()
            if interrupt_at is not None and now >= interrupt_at:
                self.interrupt()
                interrupt_at = None
            if interrupt_when is not None and interrupt_when(b"".join(out)):
                self.interrupt()
                interrupt_when = None
            wait = deadline - now
            if interrupt_at is not None:
                wait = min(wait, interrupt_at - now)
            if interrupt_when is not None:
                wait = min(wait, 0.001)
            if wait < 0 or not self.sel.get_map():
                return None
            for key, _ in self.sel.select(wait):
                if key.data == "req":
                    return "writable"
                if key.data == "out":
                    self._read(self.out, out)
                elif key.data == "err":
                    self._read(self.err, err)
                else:
                    chunks = []
                    self._read(self.rep, chunks)
                    self.rep_buf += b"".join(chunks)
                    while b"\n" in self.rep_buf:
                        line, self.rep_buf = self.rep_buf.split(b"\n", 1)
                        words = line.split()
                        if (want_seq is not None and len(words) == 3 and
                                words[0] == b"done" and
                                words[1] == b"%d" % want_seq):
                            # Everything written before the reply is in
                            # the pipes already: take it, as the agent
                            # does (repl_drain).
                            self._read(self.out, out)
                            self._read(self.err, err)
                            return int(words[2])
            if deadline <= time.monotonic() and interrupt_at is None:
                return None

    def call(self, code, stdin=b"", timeout=30.0, interrupt_after=None,
             interrupt_when=None):
        if isinstance(code, str):
            code = code.encode()
        if isinstance(stdin, str):
            stdin = stdin.encode()
        self.seq += 1
        msg = b"run %d %d %d\n" % (self.seq, len(code), len(stdin)) + \
            code + stdin
        out, err = [], []
        t0 = time.monotonic()
        deadline = t0 + timeout
        interrupt_at = None if interrupt_after is None else \
            t0 + interrupt_after
        view = memoryview(msg)
        status = None
        while view:  # the pipe takes 64 KiB at a time: keep reading too
            try:
                view = view[os.write(self.req, view):]
            except BlockingIOError:
                if self._pump(out, err, None, deadline,
                              writable=True) != "writable":
                    break
            except BrokenPipeError:
                break
        else:
            status = self._pump(out, err, self.seq, deadline, interrupt_at,
                                interrupt_when)
        return Result(status, b"".join(out), b"".join(err),
                      time.monotonic() - t0)

    def close(self, timeout=10.0):
        """End of file on fd 0, then the exit status (killed if it does
        not leave in time)."""
        if self.req >= 0:
            os.close(self.req)
            self.req = -1
        if self.status is None:
            pidfd = os.pidfd_open(self.pid)
            try:  # readable once the process has exited
                if not select.select([pidfd], [], [], timeout)[0]:
                    os.killpg(self.pid, signal.SIGKILL)
            finally:
                os.close(pidfd)
            _, self.status = os.waitpid(self.pid, 0)
        for fd in (self.out, self.err, self.rep):
            try:
                self.sel.unregister(fd)
            except (KeyError, ValueError):
                pass
            os.close(fd)
        return self.status

    def alive(self):
        if self.status is None:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = st
        return self.status is None


def start(argv, timeout=60.0):
    """Starts the interpreter and waits until it answers a first call, so
    the time start-up took is known; returns (interpreter, seconds)."""
    t0 = time.monotonic()
    it = Interpreter(argv)
    r = it.call("", timeout=timeout)
    if r.status != 0:
        raise SystemExit("the interpreter did not answer: %r" % r)
    return it, time.monotonic() - t0


# --- check ----------------------------------------------------------------

class Checker:
    """Runs the checks, counting each: done() prints the count and fails
    when any check failed or none ran."""

    def __init__(self, argv):
        self.argv = argv
        self.passes = 0
        self.failures = 0
        self.it, secs = start(argv)
        print("started in %.0f ms" % (secs * 1e3))

    def record(self, what, ok, detail=""):
        if ok:
            self.passes += 1
            print("ok   %s" % what)
        else:
            self.failures += 1
            print("FAIL %s%s" % (what, detail and ": " + detail))
        return ok

    def wait(self, cond, what):
        """Waits (with a deadline) for the interpreter to get where the
        next step needs it; a failed check if it never does."""
        try:
            self.it.wait_until(cond, what)
            return True
        except TimeoutError as e:
            return self.record(what, False, str(e))

    # interrupt_when conditions: SIGINT goes out once the event happened.

    def printed(self, marker):
        """The cell wrote marker (it is in its loop by then)."""
        return lambda out: marker in out

    def blocked_after(self, marker):
        """The cell wrote marker and then blocked in the kernel: in the
        call that comes after the marker in the cell."""
        it = self.it
        return lambda out: marker in out and it.sleeping()

    def idle(self):
        """No SIGINT is pending and the main thread is blocked again
        (reading the next request): a SIGINT sent before was handled."""
        it = self.it
        return lambda: not it.sigint_pending() and it.sleeping()

    def expect(self, what, code, status=0, out=None, err=None, stdin=b"",
               interrupt_when=None, err_has=(), out_has=(), timeout=30.0):
        r = self.it.call(code, stdin=stdin, timeout=timeout,
                         interrupt_when=interrupt_when)
        problems = []
        if r.status != status:
            problems.append("status %r, want %r" % (r.status, status))
        if out is not None and r.out != out:
            problems.append("stdout %r, want %r" % (r.out, out))
        if err is not None and r.err != err:
            problems.append("stderr %r, want %r" % (r.err, err))
        for s in ([out_has] if isinstance(out_has, bytes) else out_has):
            if s not in r.out:
                problems.append("stdout lacks %r" % s)
        for s in ([err_has] if isinstance(err_has, bytes) else err_has):
            if s not in r.err:
                problems.append("stderr lacks %r" % s)
        if problems:
            self.record(what, False, "%s\n     stdout=%r\n     stderr=%r" % (
                "; ".join(problems), r.out[:2000], r.err[:2000]))
        else:
            self.record("%-46s %8.2f ms" % (what, r.seconds * 1e3), True)
        return r

    def python(self):
        e = self.expect
        e("assignment", "x = 42", out=b"", err=b"")
        e("state kept", "print(x)", out=b"42\n")
        e("trailing expression displayed", "x + 1", out=b"43\n")
        e("None not displayed", "None", out=b"")
        e("_ is the last value", "_ * 2", out=b"86\n")
        e("only the last statement displays", "1\n2\n3", out=b"3\n")
        e("expression inside a block: silent", "for i in range(2):\n  i",
          out=b"")
        e("def/class/import", "import math\n"
          "def f(n):\n    return n * 2\n"
          "class C:\n    k = 7", out=b"")
        e("... persist", "print(f(C.k), math.pi > 3)", out=b"14 True\n")
        e("cells are __main__", "import pickle, sys\n"
          "print(C.__module__, pickle.loads(pickle.dumps(C())).k,"
          " sys.modules['__main__'].x)", out=b"__main__ 7 42\n")
        e("no names of the interpreter's own", "sorted(globals())",
          out=b"['C', '__builtins__', '__doc__', '__loader__', '__name__', "
          b"'__package__', '__spec__', 'f', 'i', 'math', 'pickle', 'sys', "
          b"'x']\n")
        r = e("exception: status 1", "y = 1\ndef g():\n    1/0\ng()",
              status=1, err_has=(b'File "<cell', b"line 4, in <module>",
                                 b"    g()", b"line 3, in g", b"    1/0",
                                 b"ZeroDivisionError: division by zero"))
        self.record("... traceback without repl.py frames",
                    b"repl.py" not in r.err and b"Traceback" in r.err,
                    repr(r.err))
        e("... state kept", "print(x, y)", out=b"42 1\n")
        r = e("SyntaxError", "x = = 1", status=1,
              err_has=(b'File "<cell', b"x = = 1", b"SyntaxError"))
        self.record("... SyntaxError printed without a traceback",
                    b"Traceback" not in r.err and b"repl.py" not in r.err,
                    repr(r.err))
        e("IndentationError", "if x:\nprint(1)", status=1,
          err_has=b"IndentationError")
        e("SyntaxError runs nothing", "x = 5\n)", status=1)
        e("... x unchanged", "x", out=b"42\n")
        e("sys.exit(3)", "import sys\nprint('a')\nsys.exit(3)\nprint('b')",
          status=3, out=b"a\n", err=b"")
        e("... state kept", "x", out=b"42\n")
        e("sys.exit()", "sys.exit()", status=0, err=b"")
        e("sys.exit('msg')", "sys.exit('bye')", status=1, err=b"bye\n")
        e("exit(2) builtin", "exit(2)", status=2)
        e("... stdin still works", "print(repr(input()))", stdin=b"z\n",
          out=b"'z'\n")
        e("raise KeyboardInterrupt", "raise KeyboardInterrupt", status=130,
          err_has=b"KeyboardInterrupt")
        e("stdin: input()", "a = input('? ')\nb = input()\nprint(a, b)",
          stdin=b"one\ntwo\n", out=b"? one two\n")
        e("stdin: read() then EOF", "import sys\n"
          "print(repr(sys.stdin.read()), repr(sys.stdin.read()))",
          stdin=b"abc\ndef", out=b"'abc\\ndef' ''\n")
        e("stdin: fd 0 and a child read it", "import os, subprocess\n"
          "print(os.read(0, 2))\n"
          "print(subprocess.run(['cat'], capture_output=True).stdout)",
          stdin=b"hello", out=b"b'he'\nb'llo'\n")
        e("stdin: empty is EOF", "input()", status=1, err_has=b"EOFError")
        e("stdin: none left from before", "import sys\n"
          "print(repr(sys.stdin.read()))", out=b"''\n")
        e("stdin: binary", "import sys\n"
          "print(sys.stdin.buffer.read().hex())", stdin=b"\x00\xff",
          out=b"00ff\n")
        # What a cell's programs inherit: fds 0-2 only, fd 0 /dev/null.
        # (A preloaded module may have a file of its own open on fd 3.)
        e("fd 3 and the control channel are hidden", "import os\n"
          "def inherited(fd):\n"
          "    try:\n        return os.get_inheritable(fd)\n"
          "    except OSError:\n        return False\n"
          "print([f for f in range(3, 1024) if inherited(f)],"
          " os.readlink('/proc/self/fd/0'),"
          " os.path.exists('/proc/self/fd/3') and"
          " os.readlink('/proc/self/fd/3').startswith('pipe:'))",
          out=b"[] /dev/null False\n")
        e("stderr", "import sys\nprint('e', file=sys.stderr)",
          out=b"", err=b"e\n")
        e("subprocess output", "import subprocess\n"
          "subprocess.run(['sh', '-c', 'echo out; echo err >&2'])",
          out_has=b"out\n", err_has=b"err\n")
        e("os.system", "import os\nos.system('echo sys')", out=b"sys\n0\n")
        e("os.fork child returning from the cell", "import os\n"
          "pid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n"
          "print('child' if pid == 0 else 'parent')",
          out=b"child\nparent\n")
        e("... only the parent answers", "print(os.getpid() != pid)",
          out=b"True\n")
        e("multiprocessing, fork", "import multiprocessing as mp\n"
          "def sq(v):\n    return v * v\n"
          "with mp.get_context('fork').Pool(2) as p:\n"
          "    print(p.map(sq, range(4)))", out=b"[0, 1, 4, 9]\n")
        e("print without newline", "print('a', end='')", out=b"a")
        e("C stdio flushed", "import ctypes\n"
          "n = ctypes.CDLL(None).printf(b'from C\\n')", out=b"from C\n")
        e("replace sys.stdout", "import io, sys\n"
          "sys.stdout = buf = io.StringIO()\nprint('hidden')", out=b"")
        e("... restored", "print('visible', buf.getvalue().strip())",
          out=b"visible hidden\n")
        e("close sys.stdout", "import sys\nsys.stdout.close()")
        e("... restored", "print('again')", out=b"again\n")
        e("buffered stream on fd 1", "import sys\n"
          "sys.stdout = open(1, 'w', closefd=False)\nprint('buffered')",
          out=b"buffered\n")
        e("redirect fd 1", "import os\n"
          "os.dup2(os.open('/dev/null', os.O_WRONLY), 1)")
        e("... restored", "print('fd 1 back')", out=b"fd 1 back\n")
        e("delete builtins", "import builtins, os, signal\n"
          "del builtins.len, builtins.print, builtins.isinstance\n"
          "builtins.__import__ = None\n"
          "os.write = os.read = signal.signal = None")
        e("... loop survives (cell fails)", "print(1)", status=1,
          err_has=b"NameError")
        e("... and the next", "x", out=b"42\n")
        e("... and the next", "len('ab')", status=1, err_has=b"NameError")
        # The damage is the cell's to keep: go on in a fresh interpreter.
        self.it.close()
        self.it, _ = start(self.argv)
        self.expect("sys.displayhook replaced",
                    "import sys\nsys.displayhook = lambda v: print('<%r>' % v)")
        self.expect("... used", "5", out=b"<5>\n")
        self.expect("sys.excepthook replaced",
                    "sys.excepthook = lambda t, v, tb: print('hook', t.__name__)")
        self.expect("... used", "1/0", status=1, out=b"hook ZeroDivisionError\n")
        self.it.close()
        self.it, _ = start(self.argv)
        e("warning", "import warnings\nwarnings.warn('w1')",
          err_has=(b"<cell", b"UserWarning: w1"))
        e("... again in a later cell", "warnings.warn('w1')",
          err_has=b"UserWarning: w1")
        e("from __future__ persists", "from __future__ import annotations\n"
          "def h(a: Undefined) -> None: pass")
        e("... in the next cell", "def k(a: Undefined2): pass\n"
          "k.__annotations__", out=b"{'a': 'Undefined2'}\n")
        e("inspect.getsource", "import inspect\n"
          "def sq(v):\n    return v * v\n", out=b"")
        e("... of an earlier cell", "print(inspect.getsource(sq), end='')",
          out=b"def sq(v):\n    return v * v\n")
        # All within one kernel tick, so the directory's mtime, by which
        # the import system's cached listing goes, may not change.
        e("import misses in the working directory", "import os\n"
          "open('sbx_drive_tmp', 'w').close()\n"
          "try:\n    import sbx_drive_mod\nexcept ImportError:\n    pass\n"
          "n = open('sbx_drive_mod.py', 'w').write('V = 9\\n')\n"
          "os.remove('sbx_drive_tmp')")
        e("... a module written there since", "import sbx_drive_mod\n"
          "os.remove('sbx_drive_mod.py')\nsbx_drive_mod.V", out=b"9\n")
        e("sys.argv", "import sys\nsys.argv", out=b"['<session>']\n")
        e("__name__", "__name__", out=b"'__main__'\n")
        e("chdir persists", "import os\nos.chdir('/')")
        e("... cwd", "os.getcwd()", out=b"'/'\n")
        e("... back", "os.chdir(%r)" % os.getcwd())
        e("unicode", "print('héllo ☃')\n'☃'", out="héllo ☃\n'☃'\n".encode())
        # Each interrupt goes out once the cell is where the check means
        # it to land (its marker printed, then blocked in the kernel), not
        # after a fixed time; the timeouts are deadlines only.
        e("interrupt: while True", "n = 0\nwhile True:\n    n += 1\n"
          "    if n == 1000:\n        print('spinning')",
          status=130, interrupt_when=self.printed(b"spinning\n"),
          out=b"spinning\n",
          err_has=(b"Traceback", b'File "<cell', b"KeyboardInterrupt"))
        e("... state kept", "n > 0", out=b"True\n")
        e("interrupt: time.sleep", "import time\nprint('sleeping')\n"
          "time.sleep(60)", status=130,
          interrupt_when=self.blocked_after(b"sleeping\n"),
          err_has=(b"time.sleep(60)", b"KeyboardInterrupt"))
        it = self.it
        e("interrupt: subprocess", "import subprocess\n"
          "subprocess.run(['sleep', '60'])", status=130,
          interrupt_when=lambda out: it.has_child(b"sleep") and
          it.sleeping(), err_has=b"KeyboardInterrupt")
        e("interrupt: with a thread running", "import threading, time\n"
          "t = threading.Thread(target=time.sleep, args=(2,), daemon=True)\n"
          "t.start()\nprint('started')\ntime.sleep(60)", status=130,
          interrupt_when=self.blocked_after(b"started\n"),
          err_has=b"KeyboardInterrupt")
        e("interrupt: handler replaced by the cell", "import signal\n"
          "signal.signal(signal.SIGINT, signal.SIG_IGN)")
        e("... next cell interruptible", "import time\nprint('sleeping')\n"
          "time.sleep(60)", status=130,
          interrupt_when=self.blocked_after(b"sleeping\n"))
        e("interrupt: SIGINT blocked by the cell", "import signal\n"
          "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})")
        e("... next cell interruptible", "print('sleeping')\ntime.sleep(60)",
          status=130, interrupt_when=self.blocked_after(b"sleeping\n"))
        e("interrupt: asyncio.run", "import asyncio\nprint('sleeping')\n"
          "asyncio.run(asyncio.sleep(60))", status=130,
          interrupt_when=self.blocked_after(b"sleeping\n"),
          err_has=b"KeyboardInterrupt")
        e("... asyncio again", "asyncio.run(asyncio.sleep(0, 'ok'))",
          out=b"'ok'\n")
        for i in range(3):
            self.it.interrupt()
            self.wait(self.idle(), "idle SIGINT %d handled" % (i + 1))
        e("SIGINT while idle is ignored", "print('alive')", out=b"alive\n")
        e("interrupt crossing the reply", "pass")
        self.it.interrupt()
        e("... next cell not interrupted", "import time\ntime.sleep(0.2)\n"
          "'fine'", out=b"'fine'\n")
        self.partial_request()
        self.interrupt_races()
        big = "s = 0\n" + "s += 1\n" * (1024 * 1024 // 7) + "s"
        e("1 MiB of code", big, out=b"%d\n" % (1024 * 1024 // 7))
        e("1 MiB of stdin", "import sys\nlen(sys.stdin.buffer.read())",
          stdin=b"x" * (1 << 20), out=b"1048576\n")
        e("10 MiB of output", "import sys\n"
          "sys.stdout.write('y' * (10 << 20))\nNone",
          out=b"y" * (10 << 20))
        e("output interleaved with a slow cell", "import time\n"
          "for i in range(3):\n    print(i)\n    time.sleep(0.05)",
          out=b"0\n1\n2\n")
        e("RecursionError", "def r(): r()\nr()", status=1,
          err_has=b"RecursionError")
        e("... recovers", "1", out=b"1\n")
        e("NUL in code", "x = 1\0", status=1)
        e("empty cell", "", out=b"", err=b"")
        e("comment only", "# nothing", out=b"", err=b"")
        self.record("interpreter alive at the end", self.it.alive())

    def partial_request(self):
        """A SIGINT while a request is half written loses no byte of it."""
        it = self.it
        it.seq += 1
        code = b"v = 'abc'\nv * 2"
        msg = b"run %d %d 0\n" % (it.seq, len(code)) + code
        os.write(it.req, msg[:10])
        self.wait(lambda: _unread(it.req) == 0 and it.sleeping(),
                  "the interpreter to read a partial request and wait")
        it.interrupt()
        self.wait(self.idle(), "SIGINT inside a request handled")
        os.write(it.req, msg[10:])
        out, err = [], []
        status = it._pump(out, err, it.seq, time.monotonic() + 30)
        got = (status, b"".join(out), b"".join(err))
        self.record("SIGINT inside a request",
                    got == (0, b"'abcabc'\n", b""), repr(got))

    def interrupt_races(self, rounds=300):
        """SIGINTs timed around the end of a cell: every call still gets a
        reply, 0 or 130, and the interpreter and its state survive."""
        import random
        self.it.call("import time\ncount = 0")
        seen = {}
        for i in range(rounds):
            d = random.uniform(0, 0.004)
            # The SIGINT's random timing is the point here: it lands
            # anywhere around the end of the cell.
            r = self.it.call("count += 1\ntime.sleep(%f)" % d,
                             interrupt_after=random.uniform(0, 0.006))
            seen[r.status] = seen.get(r.status, 0) + 1
            if r.status not in (0, 130):
                break
        r = self.it.call("print(count > 0)")
        self.record("SIGINT races: %d rounds, statuses %r" % (rounds, seen),
                    set(seen) <= {0, 130} and r.out == b"True\n",
                    "then print(count > 0) gave %r" % r)

    def ml(self):
        """In a fresh interpreter: the first `import torch` is the test."""
        if self.it.seq > 1:  # more than start()'s call
            self.it.close()
            self.it, _ = start(self.argv)
        e = self.expect
        r = e("import torch (preloaded)", "import time\nt = time.perf_counter()\n"
              "import torch, numpy, pandas, sklearn\n"
              "print(round((time.perf_counter() - t) * 1e3, 1), 'ms')")
        print("     import torch, numpy, pandas, sklearn in a cell: %s" %
              r.out.decode().strip())
        e("pandas DataFrame", "import pandas as pd\n"
          "df = pd.DataFrame({'a': [1, 2, 3], 'b': [4.0, 5.0, 6.0]})")
        e("... next call", "df.shape", out=b"(3, 2)\n")
        e("... displayed", "df", out_has=b"   a    b\n0  1  4.0\n")
        e("numpy", "import numpy as np\nnp.arange(4).sum()", out=b"6\n")
        e("torch", "torch.tensor([1.0, 2.0]).sum().item()", out=b"3.0\n")
        e("matplotlib", "import matplotlib.pyplot as plt\n"
          "plt.plot([1, 2]); plt.savefig('/tmp/p.png'); import os\n"
          "os.path.getsize('/tmp/p.png') > 0", out=b"True\n", err=b"")

    def done(self):
        self.it.close()
        print("checks: %d passed, %d failed" % (self.passes, self.failures))
        return 1 if self.failures or not self.passes else 0


# --- bench ----------------------------------------------------------------

def bench(argv, n, code, starts):
    times = []
    for _ in range(starts):
        it, secs = start(argv)
        times.append(secs)
        it.close()
    print("start-up to first reply: median %.1f ms, min %.1f ms (%d starts)"
          % (statistics.median(times) * 1e3, min(times) * 1e3, starts))
    it, _ = start(argv)
    it.call("x = 0")
    for _ in range(min(n, 200)):  # warm up
        it.call(code)
    rtt = []
    for _ in range(n):
        r = it.call(code)
        if r.status != 0:
            raise SystemExit("call failed: %r" % r)
        rtt.append(r.seconds)
    it.close()
    rtt.sort()
    print("round trip of %r: median %.1f us, p90 %.1f us, p99 %.1f us, "
          "min %.1f us (%d calls)" % (
              code, rtt[len(rtt) // 2] * 1e6, rtt[len(rtt) * 9 // 10] * 1e6,
              rtt[len(rtt) * 99 // 100] * 1e6, rtt[0] * 1e6, n))


def stub():
    """The least interpreter: answers at once, runs nothing."""
    req = os.dup(0)
    rep = 3
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = os.read(req, 65536)
            if not chunk:
                return
            buf += chunk
        header, buf = buf.split(b"\n", 1)
        _, seq, n, m = header.split()
        need = int(n) + int(m)
        while len(buf) < need:
            buf += os.read(req, 65536)
        buf = buf[need:]
        os.write(rep, b"done %s 0\n" % seq)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("run")
    p.add_argument("-c", dest="cells", action="append", default=[])
    p.add_argument("--stdin", default="")
    p.add_argument("--interrupt-after", type=float)
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("cmd", nargs="+")
    p = sub.add_parser("check")
    p.add_argument("--ml", action="store_true",
                   help="the python checks, then the python-ml ones")
    p.add_argument("--ml-only", action="store_true",
                   help="the python-ml checks alone")
    p.add_argument("--cwd", help="the interpreter's working directory "
                   "(default: a scratch directory)")
    p.add_argument("cmd", nargs="+")
    p = sub.add_parser("bench")
    p.add_argument("-n", type=int, default=2000)
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--code", default="x += 1")
    p.add_argument("cmd", nargs="+")
    sub.add_parser("stub")
    args = ap.parse_args()

    if args.mode == "stub":
        stub()
        return 0
    if args.mode == "bench":
        bench(args.cmd, args.n, args.code, args.starts)
        return 0
    if args.mode == "check":
        # In a scratch directory, which the checks write to; paths in the
        # command still name what they named here.
        cmd = [os.path.abspath(a) if os.path.exists(a) else a
               for a in args.cmd]
        with tempfile.TemporaryDirectory(prefix="drive-") as scratch:
            os.chdir(args.cwd or scratch)
            c = Checker(cmd)
            if not args.ml_only:
                c.python()
            if args.ml or args.ml_only:
                c.ml()
            return c.done()
    it = Interpreter(args.cmd)
    for code in args.cells:
        r = it.call(code, stdin=args.stdin, timeout=args.timeout,
                    interrupt_after=args.interrupt_after)
        print("--- status %r, %.2f ms" % (r.status, r.seconds * 1e3))
        sys.stdout.flush()
        sys.stdout.buffer.write(r.out)
        if r.err:
            sys.stdout.buffer.write(b"--- stderr\n" + r.err)
        sys.stdout.flush()
    out, err = it.drain(0.05)
    st = it.close()
    print("--- exit status %r%s" % (
        os.waitstatus_to_exitcode(st),
        (", late stderr %r" % err) if err else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
