#!/usr/bin/env bash
# Puts the rust image's build wrapper (rust-build) and package installer
# (rust-pkg) into its build context. scripts/build-images.sh runs it as
# `context.sh CONTEXT_DIR CACHE_DIR`. Nothing is fetched.
set -euo pipefail
[ $# -eq 2 ] || {
	echo "usage: $0 CONTEXT_DIR CACHE_DIR" >&2
	exit 2
}
install -m 0755 "$(dirname "$0")/rust-build" "$(dirname "$0")/rust-pkg" "$1/"
