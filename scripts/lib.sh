# Shared helpers for the scripts in this directory. Source it, don't run it:
#   . "$(dirname "$0")/lib.sh"
# Everything here writes to stderr; stdout stays free for what a script
# is asked to print.

# shellcheck shell=bash

# shellcheck disable=SC2034 # for the scripts that source this
SBX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sbx_log() { printf '%s\n' "$*" >&2; }
sbx_warn() { printf 'warning: %s\n' "$*" >&2; }
sbx_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# A step header, so a long log can be scanned by eye.
sbx_step() { printf '\n==> %s\n' "$*" >&2; }

# Seconds since the epoch with microseconds, and a duration since then.
sbx_now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
sbx_since() { awk -v a="$1" -v b="$(sbx_now)" 'BEGIN { printf "%.1fs", b - a }'; }

# Run a command as root: directly when we are root, else through sudo.
sbx_as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		sbx_die "need root for: $* (run as root or install sudo)"
	fi
}

# Prints the packages among "$@" that dpkg does not have installed (all of
# them where there is no dpkg).
sbx_apt_missing() {
	local p status
	if ! command -v dpkg-query >/dev/null 2>&1; then
		printf '%s\n' "$@"
		return
	fi
	for p in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		case "$status" in
		ii*) ;;
		*) printf '%s\n' "$p" ;;
		esac
	done
}

# Installs the packages among "$@" that are missing; does nothing (and
# touches no network) when all are there.
sbx_apt_install() {
	local missing log t
	command -v dpkg-query >/dev/null 2>&1 ||
		sbx_die "not a Debian/Ubuntu system; install these by hand: $*"
	missing=$(sbx_apt_missing "$@" | tr '\n' ' ')
	missing=${missing% }
	[ -n "$missing" ] || return 0
	log=$(mktemp "${TMPDIR:-/tmp}/mcp-sandbox-apt.XXXXXX.log")
	t=$(sbx_now)
	sbx_log "installing: $missing (log: $log)"
	# shellcheck disable=SC2086 # one word per package
	if ! { [ -n "${SBX_APT_UPDATED:-}" ] ||
		sbx_as_root env DEBIAN_FRONTEND=noninteractive apt-get update; } </dev/null >"$log" 2>&1 ||
		! sbx_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
			-o Dpkg::Use-Pty=0 $missing </dev/null >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		sbx_die "apt-get failed; the whole log is $log"
	fi
	# One update per run of a script (and the scripts it runs).
	export SBX_APT_UPDATED=1
	sbx_log "installed $(grep -c '^Setting up ' "$log") packages in $(sbx_since "$t")"
	rm -f "$log"
}

# The packages that give this machine a Node.js of 18 or later with its npm
# (Debian's nodejs and npm), or nothing when it has one. A Node from
# anywhere else will do; Debian's would fight with it, so a Node without
# npm is an error.
sbx_node_pkgs() {
	local major
	major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
	if [ "$major" -ge 18 ]; then
		command -v npm >/dev/null 2>&1 ||
			sbx_die "node $(node --version) has no npm next to it; install the npm that belongs to it"
		return 0
	fi
	[ "$major" -eq 0 ] || sbx_warn "node $(node --version) is older than 18; installing Debian's"
	echo nodejs npm
}

# Compiles through ccache when this machine has it and the caller chose no
# launcher of its own (CMAKE_C_COMPILER_LAUNCHER): sets SBX_LAUNCHER to the
# cmake option ("" otherwise). Paths under the tree are hashed relative to
# it (CCACHE_BASEDIR), so a second clone of the same revision, CI's clean
# clone included, compiles nothing again. SBX_CCACHE=off compiles every
# file.
sbx_use_ccache() {
	SBX_LAUNCHER=
	[ "${SBX_CCACHE:-}" != off ] && [ -z "${CMAKE_C_COMPILER_LAUNCHER:-}" ] &&
		command -v ccache >/dev/null 2>&1 || return 0
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SBX_ROOT}
	SBX_LAUNCHER=-DCMAKE_C_COMPILER_LAUNCHER=ccache
}
