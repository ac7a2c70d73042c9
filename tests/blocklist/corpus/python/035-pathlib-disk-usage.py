import random
from collections import defaultdict
from pathlib import Path

ROOT = Path("/tmp/du_demo")


def populate(rng):
    exts = [".jpg", ".png", ".txt", ".csv", ".py", ".log"]
    for d in ["photos/2023", "photos/2024", "docs", "code/lib", "code/tests", "logs"]:
        folder = ROOT / d
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(rng.randint(2, 6)):
            ext = rng.choice(exts)
            (folder / f"item_{i}{ext}").write_bytes(b"\0" * rng.randint(100, 50_000))


def human(n):
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def dir_sizes(root):
    sizes = defaultdict(int)
    for path in root.rglob("*"):
        if path.is_file():
            size = path.stat().st_size
            for parent in path.relative_to(root).parents:
                sizes[parent] += size
    return sizes


def print_tree(root, sizes, prefix=""):
    children = sorted(p for p in root.iterdir() if p.is_dir())
    for i, child in enumerate(children):
        last = i == len(children) - 1
        rel = child.relative_to(ROOT)
        print(f"{prefix}{'└── ' if last else '├── '}{child.name}/  {human(sizes[rel])}")
        print_tree(child, sizes, prefix + ("    " if last else "│   "))


def main():
    import shutil
    shutil.rmtree(ROOT, ignore_errors=True)
    populate(random.Random(99))
    sizes = dir_sizes(ROOT)
    print(f"{ROOT}/  {human(sizes[Path('.')])}")
    print_tree(ROOT, sizes)

    by_ext = defaultdict(lambda: [0, 0])
    for p in ROOT.rglob("*.*"):
        by_ext[p.suffix][0] += 1
        by_ext[p.suffix][1] += p.stat().st_size
    print("\nby extension:")
    for ext, (count, total) in sorted(by_ext.items(), key=lambda kv: -kv[1][1]):
        print(f"  {ext:<5} {count:>3} files {human(total):>10}")

    biggest = max(ROOT.rglob("*.*"), key=lambda p: p.stat().st_size)
    print("\nlargest file:", biggest.relative_to(ROOT), human(biggest.stat().st_size))
    print("stem/suffix/parent:", biggest.stem, biggest.suffix, biggest.parent.name)
    print("with_suffix:", biggest.with_suffix(".bak").name)
    shutil.rmtree(ROOT)


if __name__ == "__main__":
    main()
