#!/usr/bin/env bash
# Puts the go image's build step into its build context.
# scripts/build-images.sh runs it as
#
#   images/go/context.sh CONTEXT_DIR CACHE_DIR
#
# and the Dockerfile copies CONTEXT_DIR/go-build to /opt/sbx/bin/go-build.
# Nothing is fetched: CACHE_DIR is not used.
set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 CONTEXT_DIR CACHE_DIR" >&2
	exit 2
}
install -m 0755 "$(dirname "$0")/go-build" "$1/go-build"
install -m 0755 "$(dirname "$0")/go-pkg" "$1/go-pkg"
