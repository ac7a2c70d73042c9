import base64
import hashlib
import hmac
import json
import os
import zlib
from pathlib import Path

ROOT = Path("/work/release")
FILES = {
    "bin/tool": b"\x7fELF fake binary content " * 64,
    "README.txt": "Run ./install.sh --prefix=$HOME/.local\n".encode(),
    "install.sh": b"#!/bin/sh\nset -eu\ncp bin/tool \"${PREFIX:-/usr/local}/bin/\"\n",
    "data/table.csv": b"k,v\n" + b"".join(f"{i},{i * i}\n".encode() for i in range(200)),
}


def digest(path, algo="sha256"):
    h = hashlib.new(algo)
    with path.open("rb") as fh:
        while chunk := fh.read(4096):
            h.update(chunk)
    return h.hexdigest()


def build_manifest(root):
    manifest = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != "MANIFEST.json":
            data = path.read_bytes()
            manifest[str(path.relative_to(root))] = {
                "size": len(data),
                "sha256": digest(path),
                "crc32": f"{zlib.crc32(data):08x}",
            }
    return manifest


def verify(root, manifest):
    problems = []
    for rel, meta in manifest.items():
        path = root / rel
        if not path.exists():
            problems.append(f"missing: {rel}")
        elif digest(path) != meta["sha256"]:
            problems.append(f"modified: {rel}")
    return problems


def main():
    for rel, data in FILES.items():
        p = ROOT / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    os.chmod(ROOT / "install.sh", 0o755)

    manifest = build_manifest(ROOT)
    (ROOT / "MANIFEST.json").write_text(json.dumps(manifest, indent=2))
    for rel, meta in manifest.items():
        print(f"{meta['sha256'][:16]}…  {meta['crc32']}  {meta['size']:>6}  {rel}")

    key = b"release-signing-key-for-demo"
    signature = hmac.new(key, (ROOT / "MANIFEST.json").read_bytes(), hashlib.sha256).digest()
    print("manifest signature (base64):", base64.b64encode(signature).decode())
    print("urlsafe form:", base64.urlsafe_b64encode(signature).rstrip(b"=").decode())

    print("verify clean tree:", verify(ROOT, manifest) or "ok")
    (ROOT / "README.txt").write_text("tampered\n")
    (ROOT / "data/table.csv").unlink()
    print("verify after tampering:", verify(ROOT, manifest))
    print("constant-time compare:", hmac.compare_digest(signature, signature))
    print("install.sh mode:", oct((ROOT / "install.sh").stat().st_mode & 0o777))


if __name__ == "__main__":
    main()
