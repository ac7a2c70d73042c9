#!/usr/bin/env bash
# Puts the python image's sitecustomize.py and session interpreter
# (repl.py) into its build context.
# scripts/build-images.sh runs it as `context.sh CONTEXT_DIR CACHE_DIR`.
# Nothing is fetched: CACHE_DIR is not used.
set -euo pipefail
[ $# -eq 2 ] || {
	echo "usage: $0 CONTEXT_DIR CACHE_DIR" >&2
	exit 2
}
install -m 0644 "$(dirname "$0")/sitecustomize.py" "$1/sitecustomize.py"
install -m 0644 "$(dirname "$0")/repl.py" "$1/repl.py"
install -m 0644 "$(dirname "$0")/pkgtool.py" "$1/pkgtool.py"
