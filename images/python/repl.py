# The session interpreter of the python and python-ml languages, installed
# in both images as /opt/sbx/repl.py and started by the agent as
#
#     python3 -u -B /opt/sbx/repl.py [--preload mod1,mod2,...]
#
# It runs the cells of one sandbox session in one persistent namespace, the
# way the interactive interpreter does: variables, imports, functions and
# classes survive from one call to the next. The protocol with the agent
# (agent/repl.c) is docs/session-interpreters.md; in short:
#
#   fd 0  requests   "run <seq> <code_len> <stdin_len>[ <paths_len>]\n"
#                    <code> <stdin> [<paths>: installed packages'
#                    directories, one a line, added to sys.path]
#   fd 1  stdout of every call
#   fd 2  stderr of every call
#   fd 3  replies    "done <seq> <status>\n", after the call's output is
#                    flushed; status 0 ok, 1 uncaught error, 130
#                    interrupted (SIGINT), N for SystemExit(N)
#
# A SIGINT (the agent's timeout or cancellation) stops the running cell with
# KeyboardInterrupt and keeps the state; one that arrives between cells is
# ignored. --preload imports modules at start (into sys.modules only), so
# that python-ml's first `import torch` costs nothing.
#
# Only the standard library is used: this runs before anything the user
# installs, and must keep working whatever the user does to sys, os or
# builtins in a cell.
import _signal  # signal's C half: its Python wrapper needs the builtins
import builtins
import sys

# Private copy of the builtins for the functions of this file (a function
# takes its builtins from its globals when it is created): a cell that
# deletes or replaces builtins.len, print or __import__ must not break the
# next request or reply. The module-level code below still runs with the
# real builtins module, and cells see that one.
__builtins__ = dict(builtins.__dict__)


def _on_idle_sigint(signum, frame):
    """The SIGINT handler between cells: the interrupt came too late for
    the cell it was meant for (the agent sends it on a timeout, which can
    cross the reply), so it is dropped.

    Python runs handlers in the main thread between bytecodes, and
    signal.signal() runs pending ones before it switches; so whichever
    handler is installed when that happens decides, not the one that was
    installed when the signal arrived. The loop switches to
    signal.default_int_handler only around a cell's own code (see
    _Session.execute), and nothing else of this file ever sees a
    KeyboardInterrupt."""


# From here on, as early as possible: the preloads take seconds.
_signal.signal(_signal.SIGINT, _on_idle_sigint)

import __future__  # noqa: E402
import ast  # noqa: E402
import fcntl  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import linecache  # noqa: E402
import os  # noqa: E402
import reprlib  # noqa: E402
import traceback  # noqa: E402

# The fds of the control channel are moved at least this high, out of the
# way of the small numbers user code and libraries use.
HIGH_FD = 100
# A request header is "run" and three decimal numbers; anything longer
# without a newline is not one.
HEADER_MAX = 64
READ_CHUNK = 64 * 1024
# Cell sources kept in linecache for tracebacks and inspect.getsource();
# past this many characters the oldest cells are forgotten (their frames
# then print without source lines).
LINECACHE_BUDGET = 64 * 1024 * 1024
MPL_FONT_CACHE = "/opt/sbx/matplotlib"
# A trailing expression that is a dict, list, tuple or set of more items
# shows its first SHOW_ITEMS (docs/session-interpreters.md): the model
# reads the output, and a million-item dict is noise to it.
SHOW_ITEMS = 100

# Private references: a cell may rebind os.write, signal.signal, io.FileIO
# and the like, and the next request and reply must still go through.
_os_close = os.close
_os_dup2 = os.dup2
_os_fstat = os.fstat
_os_lseek = os.lseek
_os_read = os.read
_os_readv = os.readv
_os_write = os.write
_os_exit = os._exit
_fcntl = fcntl.fcntl
_F_DUPFD_CLOEXEC = fcntl.F_DUPFD_CLOEXEC
# _signal's functions, not signal.py's wrappers: those run Python code that
# needs the real builtins, and convert to enums on every call.
_set_handler = _signal.signal
_pthread_sigmask = _signal.pthread_sigmask
_SIG_UNBLOCK = _signal.SIG_UNBLOCK
_SIGINT = _signal.SIGINT
_default_int_handler = _signal.default_int_handler
_FileIO = io.FileIO
_BufferedReader = io.BufferedReader
_TextIOWrapper = io.TextIOWrapper
_builtins_module = builtins
_module_type = type(sys)
_THIS_FILE = _on_idle_sigint.__code__.co_filename

# Every flag a `from __future__ import` can set: they carry over from one
# cell to the next, as in the interactive interpreter (see codeop).
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
del _name


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[_os_write(fd, view):]


def _protocol_error(msg):
    """The request stream is out of step and cannot be resynchronised: exit,
    so that the agent starts a fresh interpreter."""
    _write_all(2, ("repl.py: %s\n" % msg).encode("utf-8", "backslashreplace"))
    _os_exit(2)


def _high_dup(fd):
    """A close-on-exec duplicate of fd at HIGH_FD or above."""
    return _fcntl(fd, _F_DUPFD_CLOEXEC, HIGH_FD)


def _same_file(fd, st):
    try:
        now = _os_fstat(fd)
    except OSError:
        return False
    return now.st_dev == st.st_dev and now.st_ino == st.st_ino


def _text_out(fd, name, like):
    """A text stream on fd as `python3 -u` makes sys.stdout and sys.stderr
    (like: their (encoding, errors)): unbuffered, so that output streams
    to the agent while a cell runs, whether or not -u was given."""
    raw = _FileIO(fd, "wb", closefd=False)
    raw.name = name
    return _TextIOWrapper(raw, encoding=like[0], errors=like[1],
                          newline="\n", write_through=True)


def _text_in(like):
    """A sys.stdin on fd 0 as Python makes it: buffered, no newline
    translation."""
    raw = _FileIO(0, "rb", closefd=False)
    raw.name = "<stdin>"
    return _TextIOWrapper(_BufferedReader(raw), encoding=like[0],
                          errors=like[1], newline="\n")


def _c_fflush():
    """libc's fflush, or None when ctypes is unusable. fflush(NULL) after
    every cell: what C code (an extension's printf, C++ std::cout) left in
    the C library's stdio buffers, which are fully buffered on a pipe,
    belongs to the call that wrote it, not to some later one."""
    try:
        import ctypes
        fflush = ctypes.CDLL(None).fflush
        fflush.argtypes = [ctypes.c_void_p]
        fflush.restype = ctypes.c_int
        return fflush
    except Exception:
        return None


def _prepare_matplotlib():
    """What the python-ml fork server does before importing matplotlib: a
    writable config directory (the root filesystem is read-only) holding
    the font list built into the image, so that the import neither rescans
    the fonts (seconds) nor warns about it. The python image's
    sitecustomize does the same when a cell imports matplotlib."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    dst = os.environ.setdefault("MPLCONFIGDIR", "/tmp/matplotlib")
    try:
        os.makedirs(dst, mode=0o700, exist_ok=True)
        for name in os.listdir(MPL_FONT_CACHE):
            target = os.path.join(dst, name)
            if name.startswith("fontlist-") and not os.path.exists(target):
                with open(os.path.join(MPL_FONT_CACHE, name), "rb") as src, \
                        open(target, "wb") as out:
                    out.write(src.read())
    except OSError:
        pass  # matplotlib rebuilds the list: slower, still correct


def _preload(names):
    """Imports the modules (into sys.modules, not into the namespace): a
    cell's `import torch` is then a dictionary look-up."""
    if any(n == "matplotlib" or n.startswith("matplotlib.") for n in names):
        _prepare_matplotlib()
    for name in names:
        try:
            __import__(name)
        except BaseException as e:  # SystemExit too: a broken package
            # Written before any call, so the agent drops it; someone
            # running this by hand sees it. The session works without.
            print("repl.py: --preload %s: %s: %s" % (name, type(e).__name__, e),
                  file=sys.stderr)


class _Channel:
    """The request pipe, read with os.read/os.readv on the raw fd. Partial
    reads are normal (a 1 MiB request arrives in pipe-sized pieces), and a
    SIGINT between cells only makes a read retry (PEP 475) after
    _on_idle_sigint ran, so no byte is lost."""

    def __init__(self, fd):
        self.fd = fd
        self.pending = bytearray()  # read past the end of a header

    def _exactly(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = min(n, len(self.pending))
        view[:got] = self.pending[:got]
        del self.pending[:got]
        while got < n:
            k = _os_readv(self.fd, [view[got:]])
            if k == 0:
                return None
            got += k
        return buf

    def request(self):
        """(seq, code bytes, stdin bytes), or None at end of file."""
        while True:
            nl = self.pending.find(b"\n")
            if nl >= 0:
                break
            if len(self.pending) > HEADER_MAX:
                _protocol_error("not a request header: %r" %
                                bytes(self.pending[:HEADER_MAX]))
            chunk = _os_read(self.fd, READ_CHUNK)
            if not chunk:
                if self.pending:
                    _protocol_error("end of file inside a request header")
                return None
            self.pending += chunk
        header = bytes(self.pending[:nl])
        del self.pending[:nl + 1]
        parts = header.split(b" ")
        if (len(parts) not in (4, 5) or parts[0] != b"run" or
                not all(p.isdigit() for p in parts[1:])):
            _protocol_error("not a request header: %r" % header[:HEADER_MAX])
        seq, code_len, stdin_len = (int(p) for p in parts[1:4])
        paths_len = int(parts[4]) if len(parts) == 5 else 0
        body = self._exactly(code_len + stdin_len + paths_len)
        if body is None:
            _protocol_error("end of file inside request %d" % seq)
        end = code_len + stdin_len
        paths = bytes(body[end:]).decode("utf-8", "replace").split("\n")
        return (seq, bytes(body[:code_len]), bytes(body[code_len:end]),
                [p for p in paths if p])


class _Session:
    def __init__(self, req_fd, rep_fd, null_fd, workdir):
        self.channel = _Channel(req_fd)
        self.workdir = workdir
        self.rep_fd = rep_fd
        self.null_fd = null_fd
        # Fds 1 and 2 as the agent gave them, to put back if a cell closed
        # or redirected them: every call's output must reach the agent.
        self.out_fd = _high_dup(1)
        self.err_fd = _high_dup(2)
        self.out_stat = _os_fstat(1)
        self.err_stat = _os_fstat(2)
        self.in_like = (sys.stdin.encoding, sys.stdin.errors)
        self.out_like = (sys.stdout.encoding, sys.stdout.errors)
        self.err_like = (sys.stderr.encoding, sys.stderr.errors)
        self.stdout = _text_out(1, "<stdout>", self.out_like)
        self.stderr = _text_out(2, "<stderr>", self.err_like)
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr
        sys.stdin = sys.__stdin__ = _text_in(self.in_like)
        self.fflush = _c_fflush()
        self.cells = 0
        self.cached = []  # [(file name, length)] of the cells in linecache
        self.cached_chars = 0
        self.flags = 0  # __future__ flags of the cells so far
        # The namespace: a real __main__ module, so that pickle,
        # dataclasses, typing.get_type_hints and multiprocessing find what
        # the cells define. Like the interactive __main__, it has no
        # __file__.
        main = _module_type("__main__")
        main.__dict__["__builtins__"] = _builtins_module
        sys.modules["__main__"] = main
        self.ns = main.__dict__
        # A cell's os.fork() child that returns from the cell must neither
        # take the next request nor answer this one: it leaves instead, as
        # it would at the end of a script.
        self.forked = False
        os.register_at_fork(after_in_child=self.after_fork)
        self.site = self.user_site = None
        try:
            import site
            if site.ENABLE_USER_SITE:
                self.site, self.user_site = site, site.getusersitepackages()
        except Exception:
            pass

    def serve(self):
        while True:
            req = self.channel.request()
            if req is None:
                self.finish()
            seq, code, data, paths = req
            self.add_paths(paths)
            try:
                status = self.call(code, data)
            except BaseException as e:
                # A failure of this file, not of the cell (a cell's own
                # exceptions never get here): say so, and answer anyway,
                # since the agent waits for it.
                status = 1
                self.show(e, e.__traceback__)
            self.flush()
            if self.forked:
                _os_exit(status)
            self.reply(seq, status)

    def after_fork(self):
        self.forked = True
        for fd in (self.channel.fd, self.rep_fd):
            try:
                _os_close(fd)
            except OSError:
                pass

    def add_paths(self, paths):
        """Installed packages' directories (sandbox_install into this
        session): appended to sys.path, once, before the cell runs."""
        added = False
        for p in paths:
            if p not in sys.path:
                sys.path.append(p)
                added = True
        if added:
            import importlib
            importlib.invalidate_caches()

    def call(self, code, data):
        """Runs one cell with its stdin; returns its status."""
        self.cells += 1
        filename = "<cell %d>" % self.cells
        self.stdin_begin(data)
        try:
            self.before_cell()
            exc = self.run(code, filename)
        finally:
            self.restore()
        return self.outcome(exc)

    def stdin_begin(self, data):
        """fd 0, and so sys.stdin, input() and the programs the cell starts,
        read the call's stdin bytes, then end of file. A fresh sys.stdin,
        so that nothing an earlier call left in a buffer is read again."""
        if data:
            try:
                fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
            except (AttributeError, OSError):
                import tempfile
                with tempfile.TemporaryFile() as f:
                    fd = os.dup(f.fileno())
            try:
                _write_all(fd, data)
                _os_lseek(fd, 0, os.SEEK_SET)
                _os_dup2(fd, 0)
            finally:
                _os_close(fd)
        else:
            _os_dup2(self.null_fd, 0)
        sys.stdin = sys.__stdin__ = _text_in(self.in_like)

    def before_cell(self):
        # Children an earlier cell forked and never waited for are
        # zombies of this process (the agent killed them when that call
        # ended, and only a parent can reap): collect them so they do not
        # pile up against the pids limit. No earlier child is alive.
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        # A `pip install --user` during the session creates the user site
        # directory, which site skipped at start-up when it did not exist.
        path = self.user_site
        if path and path not in sys.path and os.path.isdir(path):
            self.site.addsitedir(path)
        # A module the user wrote in the working directory since the last
        # cell must import even when the directory's mtime, by which the
        # import system's cached listing goes, did not change (on kernels
        # with coarse timestamps it changes once per tick at most).
        finder = sys.path_importer_cache.get(self.workdir)
        if finder is not None:
            finder.invalidate_caches()
        # Warnings print once per (text, category, line) and module; the
        # cells share one module and their lines all start at 1, so
        # without this a warning would silence the same one in any later
        # cell, or in the same cell run again.
        self.ns.pop("__warningregistry__", None)
        if "__builtins__" not in self.ns:
            self.ns["__builtins__"] = _builtins_module

    def restore(self):
        """Undoes what the cell may have done to the call's plumbing: fd 0
        back to /dev/null, fds 1 and 2 back to the agent's pipes, sys.std*
        back to this interpreter's own streams (flushing what the cell put
        in their place)."""
        _os_dup2(self.null_fd, 0)
        for name, mine in (("stdout", self.stdout), ("stderr", self.stderr)):
            theirs = getattr(sys, name, None)
            if theirs is not mine:
                try:
                    theirs.flush()  # e.g. a buffered stream on fd 1
                except Exception:
                    pass
        if self.fflush is not None:
            self.fflush(None)  # to where the cell's C code was writing
        if not _same_file(1, self.out_stat):
            _os_dup2(self.out_fd, 1)
        if not _same_file(2, self.err_stat):
            _os_dup2(self.err_fd, 2)
        if self.stdout.closed:
            self.stdout = _text_out(1, "<stdout>", self.out_like)
        if self.stderr.closed:
            self.stderr = _text_out(2, "<stderr>", self.err_like)
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr

    def flush(self):
        """Everything the call wrote into the pipes, before the reply."""
        for stream in (self.stdout, self.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        if self.fflush is not None:
            self.fflush(None)

    def reply(self, seq, status):
        try:
            _write_all(self.rep_fd, b"done %d %d\n" % (seq, status))
        except OSError:
            self.finish()  # the agent is gone

    def finish(self):
        """The agent closed the request pipe (or the reply pipe broke): it
        is killing this interpreter or has forgotten it. Leave at once: no
        atexit handlers, no waiting for threads a cell left running."""
        self.flush()
        _os_exit(0)

    # --- compiling and running a cell -----------------------------------

    def remember(self, filename, src):
        """Puts the cell's source where tracebacks, warnings, pdb and
        inspect.getsource() look for it. mtime None: linecache.checkcache()
        keeps the entry, as it does for sources that came from a loader."""
        text = src.decode("utf-8", "replace")
        if text.startswith("\ufeff"):  # as the compiler skips it
            text = text[1:]
        lines = text.splitlines(True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        linecache.cache[filename] = (len(text), None, lines, filename)
        self.cached.append((filename, len(text)))
        self.cached_chars += len(text)
        while self.cached_chars > LINECACHE_BUDGET and len(self.cached) > 1:
            old, size = self.cached.pop(0)
            linecache.cache.pop(old, None)
            self.cached_chars -= size

    def compile_cell(self, src, filename):
        """The cell as the code objects to run in turn. A trailing
        expression statement is compiled on its own in 'single' mode, which
        hands its value to sys.displayhook (prints the repr unless it is
        None, binds it to _), as the interactive interpreter does. Parsing
        once keeps every statement's line number."""
        flags = self.flags
        tree = compile(src, filename, "exec", flags | ast.PyCF_ONLY_AST,
                       dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Interactive(body=[tree.body.pop()])
        codes = []
        if tree.body:
            code = compile(tree, filename, "exec", flags, dont_inherit=True)
            flags |= code.co_flags & _FUTURE_FLAGS
            codes.append(code)
        if last is not None:
            codes.append(compile(last, filename, "single", flags,
                                 dont_inherit=True))
        self.flags = flags
        return codes

    def run(self, src, filename):
        """Compiles and runs the cell; returns the exception that ended it,
        or None."""
        self.remember(filename, src)
        try:
            codes = self.compile_cell(src, filename)
        except Exception as e:  # SyntaxError, ValueError (NUL), RecursionError
            return e
        return self.execute(codes)

    def execute(self, codes):
        """Runs the code objects with Python's default SIGINT handler, so
        that an interrupt raises KeyboardInterrupt in the cell; returns the
        exception that ended them, or None."""
        exc = None
        ns = self.ns
        try:
            # A cell that blocked SIGINT must not turn every later timeout
            # into a kill (a handler it installed is replaced right here).
            _pthread_sigmask(_SIG_UNBLOCK, (_SIGINT,))
            _set_handler(_SIGINT, _default_int_handler)
            for code in codes:
                exec(code, ns)
        except BaseException as e:
            exc = e
        # Back to ignoring SIGINT. signal.signal() runs pending handlers
        # before it switches, so a SIGINT that came just now raises here:
        # the cell counts as interrupted, unless it had failed already.
        # Until the idle handler is in place, nothing else runs.
        while True:
            try:
                _set_handler(_SIGINT, _on_idle_sigint)
                break
            except KeyboardInterrupt as e:
                if exc is None:
                    exc = e
        return exc

    def outcome(self, exc):
        """The status of a cell that ended with exc (or None), after
        printing what the interpreter would print."""
        if exc is None:
            return 0
        if isinstance(exc, SystemExit):
            # As the interpreter turns it into an exit status; this one
            # stays.
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
        # Drop this file's frames (the exec call; a KeyboardInterrupt that
        # came just before or after the cell's own code has no other):
        # the traceback reads as if the interpreter had run the cell. A
        # SyntaxError is left with none, and prints as Python prints it.
        tb = exc.__traceback__
        while tb is not None and \
                tb.tb_frame.f_code.co_filename == _THIS_FILE:
            tb = tb.tb_next
        exc = exc.with_traceback(tb)
        # For pdb.pm() and friends, as the interactive interpreter does.
        sys.last_type, sys.last_value, sys.last_traceback = \
            type(exc), exc, tb
        self.show(exc, tb)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1

    def show(self, exc, tb):
        """Prints an exception on stderr as Python would, or hands it to
        the sys.excepthook a cell installed."""
        try:
            hook = sys.excepthook
            if hook is sys.__excepthook__:
                # traceback rather than the C hook: it reads the cells'
                # lines from linecache.
                self.stderr.write("".join(
                    traceback.format_exception(type(exc), exc, tb)))
            else:
                hook(type(exc), exc, tb)
        except BaseException:
            try:
                msg = "%s: %s\n" % (type(exc).__name__, exc)
            except BaseException:
                msg = "%s\n" % type(exc).__name__
            try:
                _write_all(2, msg.encode("utf-8", "backslashreplace"))
            except OSError:
                pass


def _parse_args(argv):
    preload = []
    i = 0
    while i < len(argv):
        if argv[i] == "--preload" and i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
        elif argv[i].startswith("--preload="):
            value = argv[i][len("--preload="):]
            i += 1
        else:
            print("usage: repl.py [--preload mod1,mod2,...]\n"
                  "(see docs/session-interpreters.md)", file=sys.stderr)
            sys.exit(2)
        preload += [n.strip() for n in value.split(",") if n.strip()]
    return preload


class _FirstItems(reprlib.Repr):
    """reprlib's bounds, with a dict's items in their own order (reprlib
    sorts the keys)."""

    def repr_dict(self, x, level):
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = []
        for i, key in enumerate(x):
            if i == self.maxdict:
                pieces.append("...")
                break
            pieces.append("%s: %s" % (self.repr1(key, level - 1),
                                      self.repr1(x[key], level - 1)))
        return "{%s}" % ", ".join(pieces)


def _bounded_repr(value):
    """repr(value), but a builtin container of more than SHOW_ITEMS items
    as SHOW_ITEMS of them (a dict's, a list's and a tuple's first; what is
    in them cut likewise, three levels down), with how many it has said
    after it. Anything else (a DataFrame, an ndarray: they bound their own
    repr) is as repr() gives it."""
    if type(value) not in (dict, list, tuple, set, frozenset) or \
            len(value) <= SHOW_ITEMS:
        return repr(value)
    r = _FirstItems()
    r.maxlevel = 3
    r.maxdict = r.maxlist = r.maxtuple = SHOW_ITEMS
    r.maxset = r.maxfrozenset = r.maxdeque = r.maxarray = SHOW_ITEMS
    r.maxstring = r.maxother = r.maxlong = 400
    return "%s  # %d items, %d shown" % (r.repr(value), len(value),
                                         SHOW_ITEMS)


def _displayhook(value):
    """sys.displayhook of a session: the interactive interpreter's (None
    shows nothing; the value is bound to _), with _bounded_repr. A cell
    may set its own."""
    if value is None:
        return
    builtins._ = None
    text = _bounded_repr(value)
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.write(text.encode("ascii", "backslashreplace")
                         .decode("ascii"))
    sys.stdout.write("\n")
    builtins._ = value


def main():
    preload = _parse_args(sys.argv[1:])
    try:
        req_fd = _high_dup(0)
        rep_fd = _high_dup(3)
    except OSError as e:
        print("repl.py: fds 0 (requests) and 3 (replies) must be open: %s\n"
              "(see docs/session-interpreters.md)" % e, file=sys.stderr)
        sys.exit(2)
    # The control channel lives on at high close-on-exec fds only: user
    # code and the programs it starts see /dev/null on fd 0, no fd 3.
    null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    null_fd = _high_dup(null)
    _os_close(null)
    _os_dup2(null_fd, 0)
    _os_close(3)

    # As `python3` started in /work: the working directory on sys.path in
    # place of this script's directory (absolute, so that a cell's
    # os.chdir does not change where imports look), and an argv[0] that
    # names no file.
    sys.argv = ["<session>"]
    workdir = os.getcwd()
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] == here:
        sys.path[0] = workdir
    else:
        sys.path.insert(0, workdir)
    sys.displayhook = _displayhook
    session = _Session(req_fd, rep_fd, null_fd, workdir)
    # After the session's __main__ exists: a preloaded module sees what it
    # would see had a cell imported it.
    _preload(preload)
    # What start-up made lives as long as the process: leave it out of
    # every later full collection, which a cell's allocations trigger now
    # and then (after python-ml's preloads, 200,000 objects and 120 ms).
    gc.freeze()
    session.flush()
    session.serve()


if __name__ == "__main__":
    main()
