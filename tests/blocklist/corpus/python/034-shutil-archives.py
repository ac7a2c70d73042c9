import hashlib
import shutil
import tarfile
import zipfile
from pathlib import Path

BASE = Path("/work/archive_demo")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(8192), b""):
            h.update(block)
    return h.hexdigest()


def make_source():
    src = BASE / "site"
    (src / "css").mkdir(parents=True)
    (src / "img").mkdir()
    (src / "index.html").write_text("<h1>Hello</h1>\n" * 50)
    (src / "css" / "style.css").write_text("body { font-family: sans-serif; }\n")
    (src / "img" / "pixel.bin").write_bytes(bytes(range(256)) * 40)
    return src


def main():
    shutil.rmtree(BASE, ignore_errors=True)
    src = make_source()
    originals = {p.relative_to(src): sha256(p) for p in src.rglob("*") if p.is_file()}

    print("archive formats available:", [name for name, _ in shutil.get_archive_formats()])
    for fmt in ("zip", "gztar"):
        archive = shutil.make_archive(str(BASE / f"site_{fmt}"), fmt, root_dir=src)
        size = Path(archive).stat().st_size
        print(f"{fmt:<6} -> {Path(archive).name} ({size} bytes)")
        dest = BASE / f"restored_{fmt}"
        shutil.unpack_archive(archive, dest)
        restored = {p.relative_to(dest): sha256(p) for p in dest.rglob("*") if p.is_file()}
        assert restored == originals, f"{fmt} round-trip mismatch"

    with zipfile.ZipFile(BASE / "site_zip.zip") as zf:
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            if not info.is_dir():
                ratio = info.compress_size / info.file_size if info.file_size else 0
                print(f"  zip: {info.filename:<16} {info.file_size:>6} -> {info.compress_size:>5} ({ratio:.0%})")

    with tarfile.open(BASE / "site_gztar.tar.gz") as tf:
        names = sorted(m.name for m in tf.getmembers() if m.isfile())
        print("  tar members:", names)

    shutil.copytree(src, BASE / "site_copy", ignore=shutil.ignore_patterns("*.bin"))
    print("copy without binaries:", sorted(str(p.relative_to(BASE)) for p in (BASE / "site_copy").rglob("*.*")))
    usage = shutil.disk_usage("/work")
    print(f"/work free space: {usage.free // 2**20} MiB")
    shutil.rmtree(BASE)
    print("cleaned up")


if __name__ == "__main__":
    main()
