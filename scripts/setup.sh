#!/usr/bin/env bash
# Command one: from a fresh Debian 12 or Ubuntu machine to a working
# mcp-sandbox, as root or as a user with sudo.
#
#   scripts/setup.sh [--no-demo]
#
#   1. installs the apt packages that are missing (no apt run when none is),
#   2. makes sure a Docker engine answers (scripts/docker-up.sh),
#   3. builds the C tree into build/ (SBX_CMAKE_ARGS adds cmake options),
#   4. builds the sandbox images (scripts/build-images.sh),
#   5. runs a Python and a bash snippet through build/bin/mcp-sandbox,
#      unless --no-demo (scripts/test.sh prepares this way).
#
# Every step skips what is already done, so a re-run takes seconds.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

demo=1
for arg in "$@"; do
	case "$arg" in
	--no-demo) demo=0 ;;
	-h | --help)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
		exit 0
		;;
	*) sbx_die "unknown argument $arg (try --help)" ;;
	esac
done

cd "$SBX_ROOT"
T0=$(sbx_now)
steps=$((demo ? 5 : 4))
n=0
took=()
t_step=
# Notes how long the current step took, for the final line.
step_end() { [ -z "$t_step" ] || took+=("$title $(sbx_since "$t_step")"); }
# A numbered step header.
step() {
	step_end
	n=$((n + 1))
	title=$1
	t_step=$(sbx_now)
	sbx_step "$n/$steps $title"
}

step packages
pkgs=(build-essential cmake pkg-config libuv1-dev libcjson-dev libcurl4-openssl-dev
	libseccomp-dev libssl-dev libinih-dev mmdebstrap debian-archive-keyring)
# A Node.js of 18 or later from anywhere will do for the end-to-end tests;
# Debian's nodejs would fight with one from elsewhere.
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -ge 18 ]; then
	command -v npm >/dev/null 2>&1 ||
		sbx_die "node $(node --version) has no npm next to it; install the npm that belongs to it"
else
	[ "$node_major" -eq 0 ] || sbx_warn "node $(node --version) is older than 18; installing Debian's"
	pkgs+=(nodejs npm)
fi
# The suite's static checks (scripts/test.sh); any clang-format,
# cppcheck and clang-tidy on the PATH will do.
command -v clang-format >/dev/null 2>&1 || pkgs+=(clang-format)
# The fuzz harnesses (tests/fuzz) build with clang and its libFuzzer.
command -v clang >/dev/null 2>&1 || pkgs+=(clang)
command -v cppcheck >/dev/null 2>&1 || pkgs+=(cppcheck)
# tests/e2e/userns.test.mjs gives the engine it starts a bridge of its own.
command -v ip >/dev/null 2>&1 || pkgs+=(iproute2)
command -v run-clang-tidy >/dev/null 2>&1 || pkgs+=(clang-tidy)
if [ -n "$(sbx_apt_missing "${pkgs[@]}")" ]; then
	sbx_apt_install "${pkgs[@]}"
else
	sbx_log "all present"
fi

step docker
scripts/docker-up.sh

step build
# shellcheck disable=SC2086 # SBX_CMAKE_ARGS is a list of options
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SBX_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"

step images
scripts/build-images.sh

if [ "$demo" -eq 1 ]; then
	step demo
	# shellcheck disable=SC2016 # expanded in the sandbox
	(
		set -x
		build/bin/mcp-sandbox run python -c 'import platform; print("hello from", platform.python_implementation(), platform.python_version())'
		build/bin/mcp-sandbox run bash -c 'echo "bash $BASH_VERSION as $(id -un)"'
	)
fi

step_end
times=$(printf '%s, ' "${took[@]}")
sbx_log ""
sbx_log "setup: done in $(sbx_since "$T0") (${times%, })"
