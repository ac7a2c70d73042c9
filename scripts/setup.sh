#!/usr/bin/env bash
# Command one: from a fresh Debian 12 or Ubuntu machine to a working
# mcp-sandbox, as root or as a user with sudo.
#
#   scripts/setup.sh [--no-demo] [--languages LANG,...]
#
#   1. installs mmdebstrap and Debian's docker.io when they are missing (no
#      apt run when nothing is),
#   2. makes sure a Docker engine answers (scripts/docker-up.sh),
#   3. while the images' Debian layers build (scripts/build-images.sh
#      --packages-only), installs the missing build dependencies and builds
#      the C tree into build/ (SBX_CMAKE_ARGS adds cmake options),
#   4. finishes the sandbox images (scripts/build-images.sh): all of them,
#      or with --languages the images of those languages (python, python-ml,
#      javascript, typescript, go, rust, bash; the egress proxy always),
#   5. runs a Python and a bash snippet through build/bin/mcp-sandbox,
#      unless --no-demo (scripts/test.sh prepares this way).
#
# Every step skips what is already done, so a re-run takes seconds. The
# tools only the test suite uses (clang-format, cppcheck, ...) are
# scripts/test.sh's to install.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

demo=1
images=()
while [ $# -gt 0 ]; do
	case "$1" in
	--no-demo) demo=0 ;;
	--languages | --languages=*)
		if [ "$1" = --languages ]; then
			[ $# -ge 2 ] || sbx_die "--languages wants a list, such as python,bash"
			shift
			list=$1
		else
			list=${1#--languages=}
		fi
		# build-images.sh knows which image serves which language.
		IFS=, read -ra images <<<"$list"
		[ "${#images[@]}" -gt 0 ] || sbx_die "--languages wants a list, such as python,bash"
		images+=(proxy)
		;;
	-h | --help)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
		exit 0
		;;
	*) sbx_die "unknown argument $1 (try --help)" ;;
	esac
	shift
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

# The images' Debian layers take longest and need only mmdebstrap and an
# engine: those come first, then the layers build in the background while
# the build dependencies install and the C tree compiles.
step "packages for the images"
pkgs=(mmdebstrap debian-archive-keyring)
# Debian's engine, unless one answers or is there (docker-up.sh starts it).
if ! command -v dockerd >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
	pkgs+=(docker.io)
fi
if [ -n "$(sbx_apt_missing "${pkgs[@]}")" ]; then
	sbx_apt_install "${pkgs[@]}"
else
	sbx_log "all present"
fi

step docker
scripts/docker-up.sh

step build
# Their lines start with [lang].
scripts/build-images.sh --packages-only ${images[@]+"${images[@]}"} &
layers=$!
pkgs=(build-essential cmake pkg-config ccache libuv1-dev libcjson-dev libcurl4-openssl-dev
	libseccomp-dev libssl-dev libinih-dev libh2o-dev libhttp-parser-dev libarchive-dev)
# npm fetches Node and the TypeScript tools into the node image.
if [ "${#images[@]}" -eq 0 ] || printf '%s\n' "${images[@]}" | grep -qxE 'node|javascript|typescript'; then
	node_pkgs=$(sbx_node_pkgs) # a Node without npm stops set-up here
	read -ra node <<<"$node_pkgs"
	pkgs+=(${node[@]+"${node[@]}"})
fi
if [ -n "$(sbx_apt_missing "${pkgs[@]}")" ]; then
	sbx_apt_install "${pkgs[@]}"
fi
# The compiler's output goes to a log, which a failure shows.
mkdir -p build
t_build=$(sbx_now)
sbx_use_ccache
# shellcheck disable=SC2086 # SBX_CMAKE_ARGS is a list of options
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $SBX_LAUNCHER ${SBX_CMAKE_ARGS:-} &&
	cmake --build build -j"$(nproc)"; } >build/build.log 2>&1; then
	kill "$layers" 2>/dev/null || true
	tail -n 40 build/build.log >&2
	sbx_die "the build failed; the whole log is build/build.log"
fi
sbx_log "build: done in $(sbx_since "$t_build") (log: build/build.log)"
# Whatever failed there, the next step says again and stops on.
wait "$layers" || true

step images
scripts/build-images.sh ${images[@]+"${images[@]}"}

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
