#!/usr/bin/env bash
# Makes sure a Docker engine answers, starting one if needed.
#
# An engine that already answers (DOCKER_HOST, the docker context, or
# /var/run/docker.sock) is used as it is: this script never stops or
# restarts a running engine. Otherwise it installs Debian's docker.io if
# dockerd is missing and starts dockerd in the background, through systemd
# when systemd runs the machine, else by hand with its log in
# /var/log/mcp-sandbox-dockerd.log.
#
# A dockerd killed with its session leaves pid files behind. Both dockerd
# and its containerd trust any live process whose pid is in their pid file,
# so after a reboot or a new session (where pids are reused) they refuse to
# start or wait on a socket nobody serves. Pid files whose process is gone,
# or is not the daemon it should be, are removed before starting.
#
# Prints one line saying which engine answers on stdout; progress on stderr.
# Environment: SBX_DOCKER_WAIT seconds to wait for the engine (default 60).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly LOG=/var/log/mcp-sandbox-dockerd.log
readonly PIDFILE=/var/run/docker.pid
readonly CTRD_DIR=/var/run/docker/containerd
readonly SOCK=/var/run/docker.sock
readonly WAIT=${SBX_DOCKER_WAIT:-60}

where() {
	if [ -n "${DOCKER_HOST:-}" ]; then
		printf '%s' "$DOCKER_HOST"
	elif [ -n "${DOCKER_CONTEXT:-}" ]; then
		printf 'docker context %s' "$DOCKER_CONTEXT"
	else
		printf 'unix://%s' "$SOCK"
	fi
}

# Prints the engine's version when it answers. A hung daemon must not hang us.
engine_version() {
	command -v docker >/dev/null 2>&1 || return 1
	timeout 15 docker info --format '{{.ServerVersion}}' 2>/dev/null
}

# The command name of a live process, or nothing. A zombie (killed, not yet
# reaped by its parent) counts as dead here, though kill -0 and so dockerd's
# own pid file check still see it.
proc_comm() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	# pid (comm) state ...: comm may hold spaces and parentheses.
	case "${stat##*) }" in
	Z* | X*) return 0 ;;
	esac
	stat=${stat#*(}
	printf '%s' "${stat%)*}"
}

# Pids of live processes called "$1".
pids_named() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(proc_comm "${d#/proc/}")" = "$1" ] && printf '%s\n' "${d#/proc/}"
	done
	return 0
}

# Removes pid file "$1" unless it names a live process called "$2".
# Returns 0 when such a process is alive (and the file is kept).
check_pidfile() {
	local file=$1 name=$2 pid comm
	[ -e "$file" ] || return 1
	pid=$(tr -dc 0-9 <"$file" 2>/dev/null || true)
	comm=
	[ -n "$pid" ] && comm=$(proc_comm "$pid")
	if [ -n "$comm" ] && [ "$comm" = "$name" ]; then
		return 0
	fi
	if [ -n "$comm" ]; then
		sbx_log "removing stale $file: pid $pid is now '$comm', not $name"
	elif [ -e "/proc/$pid" ]; then
		sbx_log "removing stale $file: pid $pid is a zombie"
	else
		sbx_log "removing stale $file: pid ${pid:-?} is gone"
	fi
	sbx_as_root rm -f "$file"
	return 1
}

# Pids of live dockerds that serve the default socket. A dockerd with a
# pid file of its own (--pidfile) is another engine on this machine (the
# engine tests start one with its own data root), never this one.
main_dockerds() {
	local pid
	for pid in $(pids_named dockerd); do
		tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -e '^--pidfile' -e '^-p$' && continue
		printf '%s\n' "$pid"
	done
	return 0
}

# Dies when a local dockerd runs but this user may not talk to it.
no_access() {
	[ -S "$SOCK" ] && [ ! -w "$SOCK" ] && [ -n "$(main_dockerds)" ] || return 0
	sbx_die "dockerd runs but user $(id -un) cannot use $SOCK;" \
		"add yourself to the docker group (sudo usermod -aG docker $(id -un)) and log in again"
}

if v=$(engine_version); then
	echo "docker: engine $v answers at $(where)"
	exit 0
fi

if [ -n "${DOCKER_HOST:-}" ] || [ -n "${DOCKER_CONTEXT:-}" ]; then
	sbx_die "no Docker engine answers at $(where); not starting a local one" \
		"while DOCKER_HOST/DOCKER_CONTEXT point elsewhere (unset them to use a local dockerd)"
fi

no_access
PATH=$PATH:/usr/sbin:/sbin
if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
	sbx_step "installing Debian's docker.io"
	sbx_apt_install docker.io
	command -v dockerd >/dev/null 2>&1 || sbx_die "docker.io is installed but dockerd is not on PATH"
	# On a systemd machine the package starts the service itself.
	if v=$(engine_version); then
		echo "docker: engine $v answers at $(where)"
		exit 0
	fi
fi

start=$(sbx_now)
if [ -d /run/systemd/system ]; then
	sbx_log "docker: starting docker.service"
	# "start" leaves an active service alone.
	sbx_as_root systemctl start docker.service ||
		sbx_die "systemctl start docker failed: see journalctl -u docker"
elif check_pidfile "$PIDFILE" dockerd; then
	sbx_log "docker: dockerd (pid $(cat "$PIDFILE")) is running but not answering yet; waiting for it"
elif [ -n "$(main_dockerds)" ]; then
	sbx_log "docker: a dockerd (pid $(main_dockerds | tr '\n' ' ')) runs without $PIDFILE; waiting for it"
else
	# dockerd adopts a live containerd from its pid file; a dead one's
	# pid file and sockets only get in the way.
	if ! check_pidfile "$CTRD_DIR/containerd.pid" containerd && [ -d "$CTRD_DIR" ]; then
		sbx_as_root rm -f "$CTRD_DIR/containerd.sock" "$CTRD_DIR/containerd.sock.ttrpc" \
			"$CTRD_DIR/containerd-debug.sock"
	fi
	# Without systemd nobody may have mounted cgroups (cgroupfs-mount is
	# what Debian's init script uses).
	if ! mountpoint -q /sys/fs/cgroup && command -v cgroupfs-mount >/dev/null 2>&1; then
		sbx_as_root cgroupfs-mount
	fi
	sbx_log "docker: starting dockerd (log: $LOG)"
	# shellcheck disable=SC2016 # expanded by the inner shell
	sbx_as_root sh -c 'echo "=== $(date -u +%FT%TZ) started by mcp-sandbox scripts/docker-up.sh" >>"$1"' sh "$LOG"
	# setsid -f: own session, not our process group, so a Ctrl-C here or
	# the end of this script does not take the engine down with it.
	# shellcheck disable=SC2016
	sbx_as_root setsid -f sh -c 'exec dockerd >>"$1" 2>&1 </dev/null' sh "$LOG"
fi

elapsed=0
while :; do
	if v=$(engine_version); then
		echo "docker: engine $v answers at $(where) (up in $(sbx_since "$start"))"
		exit 0
	fi
	no_access
	if [ "$elapsed" -ge "$WAIT" ]; then
		break
	fi
	if [ "$elapsed" -ge 3 ] && [ ! -d /run/systemd/system ] && [ -z "$(main_dockerds)" ]; then
		sbx_log "docker: dockerd exited"
		break
	fi
	if [ "$elapsed" -gt 0 ] && [ $((elapsed % 10)) -eq 0 ]; then
		sbx_log "docker: still waiting for the engine (${elapsed}s of ${WAIT}s)"
	fi
	sleep 1
	elapsed=$((elapsed + 1))
done

sbx_log "error: no Docker engine answers at $(where) after ${elapsed}s."
if [ -d /run/systemd/system ]; then
	sbx_log "see: journalctl -u docker.service"
elif [ -r "$LOG" ]; then
	sbx_log "last lines of $LOG:"
	# Only what the dockerd started here said.
	awk '/^=== .* started by mcp-sandbox/ { n = 0 } { line[n++] = $0 }
		END { for (i = (n > 20 ? n - 20 : 0); i < n; i++) print line[i] }' "$LOG" >&2 || true
fi
exit 1
