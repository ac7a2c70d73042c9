import os
import shutil
from pathlib import Path

ROOT = Path("/work/project_files")


def create_tree():
    layout = {
        "src/app.py": "print('hello')\n",
        "src/utils/helpers.py": "def add(a, b):\n    return a + b\n",
        "docs/README.md": "# Project\n\nSome docs.\n",
        "docs/old_notes.txt": "obsolete\n",
        "logs/app-2024-01-01.log": "INFO start\n" * 20,
        "logs/app-2024-01-02.log": "INFO start\nERROR boom\n" * 5,
        "build/output.bin": "x" * 2048,
    }
    for rel, content in layout.items():
        path = ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return len(layout)


def walk_report():
    total = 0
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames.sort()
        depth = Path(dirpath).relative_to(ROOT).parts
        indent = "  " * len(depth)
        print(f"{indent}{Path(dirpath).name}/")
        for name in sorted(filenames):
            size = os.path.getsize(os.path.join(dirpath, name))
            total += size
            print(f"{indent}  {name} ({size} B)")
    return total


def main():
    if ROOT.exists():
        shutil.rmtree(ROOT)
    print("created", create_tree(), "files")
    print("total bytes:", walk_report())

    # Rename logs to a dated archive folder, delete obsolete notes and the build dir.
    archive = ROOT / "archive" / "logs"
    archive.mkdir(parents=True)
    for log in sorted((ROOT / "logs").glob("*.log")):
        target = archive / log.name.replace("app-", "")
        log.rename(target)
        print(f"moved {log.relative_to(ROOT)} -> {target.relative_to(ROOT)}")
    (ROOT / "logs").rmdir()
    (ROOT / "docs" / "old_notes.txt").unlink()
    shutil.rmtree(ROOT / "build")

    errors = [p.name for p in archive.iterdir() if "ERROR" in p.read_text()]
    print("logs containing errors:", errors)
    print("\nafter cleanup:")
    walk_report()
    py_files = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py"))
    assert py_files == ["src/app.py", "src/utils/helpers.py"], py_files
    shutil.rmtree(ROOT)
    print("removed", ROOT, "exists now:", ROOT.exists())


if __name__ == "__main__":
    main()
