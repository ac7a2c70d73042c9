"""The python image's package installer helper (docs/packages.md).

The host runs it as the sandbox user in an install container:

  pkgtool.py registries          the URLs of the indexes pip is configured
                                 with (its own default when none), one a line
  pkgtool.py install DIR SPEC..  pip install --target DIR; the mirror set in
                                 sandbox.ini arrives as SBX_REGISTRY
  pkgtool.py manifest DIR        what install put in DIR, as the JSON the
                                 host stores with the set

Specs were validated by the host; they are arguments, never shell text.
"""
import json
import os
import subprocess
import sys

REPORT = "/work/report.json"


def registries():
    from pip._internal.configuration import Configuration
    from pip._internal.models.index import PyPI

    conf = Configuration(isolated=False)
    conf.load()
    items = dict(conf.items())
    urls = [v for k, v in items.items() if k.endswith(("index-url", "extra-index-url"))]
    if os.environ.get("PIP_INDEX_URL"):
        urls.append(os.environ["PIP_INDEX_URL"])
    if not urls:
        urls = [PyPI.simple_url, "https://" + PyPI.file_storage_domain + "/"]
    for u in urls:
        for one in u.split():
            print(one)


def install(target, specs):
    args = [sys.executable, "-m", "pip", "install", "--no-input",
            "--disable-pip-version-check", "--no-warn-script-location",
            "--progress-bar", "off", "--no-cache-dir", "--target", target,
            "--report", REPORT]
    reg = os.environ.get("SBX_REGISTRY")
    if reg:
        args += ["--index-url", reg]
        if reg.startswith("http://"):
            host = reg[7:].split("/", 1)[0].split(":", 1)[0]
            args += ["--trusted-host", host]
    os.execv(sys.executable, args + ["--"] + specs)


def dist_bytes(target, name, version):
    norm = name.lower().replace("-", "_").replace(".", "_")
    for entry in os.listdir(target):
        if not entry.endswith(".dist-info"):
            continue
        base = entry[: -len(".dist-info")]
        n, _, v = base.rpartition("-")
        if n.lower().replace("-", "_").replace(".", "_") != norm:
            continue
        total = 0
        with open(os.path.join(target, entry, "RECORD"), encoding="utf-8") as f:
            for line in f:
                path = line.rsplit(",", 2)[0]
                full = os.path.normpath(os.path.join(target, path))
                if full.startswith(target) and os.path.isfile(full):
                    total += os.path.getsize(full)
        return total
    return 0


def manifest(target):
    import pip

    with open(REPORT, encoding="utf-8") as f:
        report = json.load(f)
    pkgs = []
    for item in report.get("install", []):
        meta = item.get("metadata", {})
        name, version = meta.get("name", ""), meta.get("version", "")
        pkgs.append({"name": name, "version": version,
                     "requested": bool(item.get("requested")),
                     "bytes": dist_bytes(target, name, version)})
    json.dump({"installer": "pip " + pip.__version__, "packages": pkgs}, sys.stdout)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "registries":
        registries()
    elif cmd == "install" and len(sys.argv) > 3:
        install(os.path.abspath(sys.argv[2]), sys.argv[3:])
    elif cmd == "manifest" and len(sys.argv) == 3:
        manifest(os.path.abspath(sys.argv[2]))
    else:
        sys.exit("usage: pkgtool.py registries | install DIR SPEC... | manifest DIR")


main()
