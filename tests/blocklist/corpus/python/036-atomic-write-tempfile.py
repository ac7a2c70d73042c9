import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

STATE = Path("/work/state/counter.json")


@contextmanager
def atomic_write(path, mode="w", encoding="utf-8"):
    """Write to a temp file in the same directory, fsync, then rename over the target.

    Readers never see a half-written file, because os.replace() is atomic on POSIX.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def bump(path):
    data = json.loads(path.read_text()) if path.exists() else {"count": 0, "history": []}
    data["count"] += 1
    data["history"].append(data["count"])
    with atomic_write(path) as fh:
        json.dump(data, fh)
    return data["count"]


def main():
    if STATE.exists():
        STATE.unlink()
    for _ in range(5):
        n = bump(STATE)
    print("counter is now", n, "->", STATE.read_text())

    try:
        with atomic_write(STATE) as fh:
            fh.write('{"count": ')
            raise RuntimeError("simulated crash mid-write")
    except RuntimeError as exc:
        print("write aborted:", exc)
    print("file still intact:", json.loads(STATE.read_text())["count"] == 5)
    leftovers = [p.name for p in STATE.parent.iterdir() if p.name.endswith(".tmp")]
    print("temp leftovers:", leftovers)
    assert not leftovers

    with tempfile.TemporaryDirectory(prefix="scratch-") as tmpdir:
        scratch = Path(tmpdir)
        for i in range(3):
            (scratch / f"part{i}.txt").write_text(f"chunk {i}\n")
        merged = "".join(p.read_text() for p in sorted(scratch.glob("part*.txt")))
        print(f"merged in {scratch.name}: {merged!r}")
    print("temporary directory removed:", not scratch.exists())

    with tempfile.NamedTemporaryFile("w+", suffix=".csv", dir="/tmp") as tf:
        tf.write("a,b\n1,2\n")
        tf.seek(0)
        print("named temp file", Path(tf.name).suffix, "contains", tf.read().splitlines())


if __name__ == "__main__":
    main()
