#!/usr/bin/env bash
# Puts the bash image's session interpreter rcfile (repl.bashrc) and the
# pre-started bash's BASH_ENV (prestart.bash) into its build context.
# scripts/build-images.sh runs it as `context.sh CONTEXT_DIR CACHE_DIR`.
# Nothing is fetched: CACHE_DIR is not used.
set -euo pipefail
[ $# -eq 2 ] || {
	echo "usage: $0 CONTEXT_DIR CACHE_DIR" >&2
	exit 2
}
install -m 0644 "$(dirname "$0")/repl.bashrc" "$1/repl.bashrc"
install -m 0644 "$(dirname "$0")/prestart.bash" "$1/prestart.bash"
