#!/usr/bin/env bash
# Context hook of scripts/build-images.sh: the fork server that the
# Dockerfile installs as /opt/sbx/zygote, and the session interpreter it
# installs as /opt/sbx/repl.py, which is the python image's
# (../python/repl.py), and that image's sitecustomize.py and package
# installer helper (pkgtool.py). Nothing is fetched.
set -euo pipefail
here=$(dirname "$0")
cp "$here/forkserver.py" "$1/forkserver.py"
install -m 0644 "$here/../python/repl.py" "$1/repl.py"
install -m 0644 "$here/../python/sitecustomize.py" "$1/sitecustomize.py"
install -m 0644 "$here/../python/pkgtool.py" "$1/pkgtool.py"
