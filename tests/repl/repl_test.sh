#!/usr/bin/env bash
# repl_test.sh - the checks of one language's session interpreter
# (docs/session-interpreters.md) against the interpreter in this tree,
# run in the language's image the way the agent runs it.
#
#   repl_test.sh LANGUAGE [PLUGIN_DIR [PLUGIN_SESSION]]
#
# LANGUAGE is python, python-ml, javascript or typescript. PLUGIN_DIR holds
# the built plugins (default build/lib/mcp-sandbox/plugins), PLUGIN_SESSION
# is the helper that prints a plugin's session_cmd, env, image and limits
# (default build/bin/plugin_session). The harness (drive.py
# or drive.mjs) runs in the container as the sandbox user and starts the
# interpreter with the plugin's session_cmd and exactly the environment the
# host gives it; the tree's images/python/repl.py or images/node/repl.mjs is
# bind-mounted over the image's copy. Exit 0 pass, 1 fail (or no check ran),
# 77 skipped (Docker or the image missing, unless CI=true, where that is a
# failure). Builds nothing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lang=${1:-}
PLUGIN_DIR=${2:-$root/build/lib/mcp-sandbox/plugins}
PLUGIN_SESSION=${3:-$root/build/bin/plugin_session}

skip() {
	if [ "${CI:-}" = "true" ]; then
		echo "FAIL: $1 (CI=true)"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
die() {
	echo "FAIL: $1"
	exit 1
}

# Which harness checks which language, and the interpreter file under test.
case $lang in
python)
	harness=(python3 /h/drive.py check --cwd /work --)
	file=images/python/repl.py
	;;
python-ml)
	harness=(python3 /h/drive.py check --ml --cwd /work --)
	file=images/python/repl.py
	;;
javascript)
	harness=(node /h/drive.mjs --check js --)
	file=images/node/repl.mjs
	;;
typescript)
	harness=(node /h/drive.mjs --check ts --)
	file=images/node/repl.mjs
	;;
*)
	echo "usage: $0 python|python-ml|javascript|typescript [PLUGIN_DIR [PLUGIN_SESSION]]" >&2
	exit 2
	;;
esac

[ -x "$PLUGIN_SESSION" ] || die "no plugin_session at $PLUGIN_SESSION"
decl=$("$PLUGIN_SESSION" "$PLUGIN_DIR/$lang.so") || die "cannot read the $lang plugin in $PLUGIN_DIR"
field() { printf '%s\n' "$decl" | sed -n "s/^$1	//p"; }
image=$(field image)
mapfile -t cmd < <(field cmd)
mapfile -t plugin_env < <(field env)
# The interpreter the plugin starts must be the file mounted below, or the
# test would check the image's copy.
target=/opt/sbx/$(basename "$file")
printf '%s\n' "${cmd[@]}" | grep -qxF "$target" ||
	die "the $lang plugin's session_cmd (${cmd[*]}) does not run $target"

# Limits: the plugin's, else the host's defaults (host/core/plugins/config.c).
limit() { local v; v=$(field "$1"); [ "${v:-0}" -gt 0 ] && echo "$v" || echo "$2"; }
memory_mb=$(limit memory_mb 512)
pids=$(limit pids 128)
nofile=$(limit nofile 1024)
cpu_millis=$(limit cpu_millis 1000)

docker info >/dev/null 2>&1 || skip "Docker is not reachable"
docker image inspect "$image" >/dev/null 2>&1 || skip "image $image not found"

name=sbx-repl-test-$lang-$$
out=$(mktemp)
cleanup() {
	docker rm -f "$name" >/dev/null 2>&1
	rm -f "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The agent's container flags (host/docker/container.c) with the plugin's
# limits; --init reaps what the checks leave behind, which the agent does
# as PID 1. The host's base environment (host/core/exec/executor.c) plus the
# plugin's env, and nothing else: env -i, as the agent passes exactly that.
base_env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	HOME=/work USER=sandbox LOGNAME=sandbox LANG=C.UTF-8 LC_ALL=C.UTF-8
	TMPDIR=/tmp)
docker_run=(docker run --rm --name "$name" --init
	--read-only
	--tmpfs /work:rw,exec,nosuid,nodev,size=256m,uid=1000,gid=1000,mode=0700
	--tmpfs /tmp:rw,noexec,nosuid,nodev,size=64m
	--shm-size 64m
	--cap-drop ALL --security-opt no-new-privileges --network none
	--user 1000:1000 -w /work
	--memory "${memory_mb}m" --memory-swap "${memory_mb}m"
	--pids-limit "$pids" --cpus "$(awk "BEGIN { print $cpu_millis / 1000 }")"
	--ulimit "nofile=$nofile" --ulimit core=0
	-v "$here:/h:ro"
	-v "$root/$file:$target:ro"
	--entrypoint /usr/bin/env
	"$image" -i "${base_env[@]}" "${plugin_env[@]}"
	"${harness[@]}" "${cmd[@]}")

echo "# $lang: ${cmd[*]} in $image, $file mounted at $target"
start=$(date +%s)
"${docker_run[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
echo "# $(($(date +%s) - start)) s"

# The harness ends with "checks: N passed, M failed".
summary=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
passed=$(echo "$summary" | awk '{ print $2 }')
failed=$(echo "$summary" | awk '{ print $4 }')
if [ -z "$summary" ]; then
	echo "FAILED: the harness exited $rc without its count"
	exit 1
fi
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
	echo "FAILED: $failed of $((passed + failed)) checks (harness exit $rc)"
	exit 1
fi
echo "PASS: $passed checks"
exit 0
