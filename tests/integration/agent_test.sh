#!/usr/bin/env bash
# agent_test.sh - the agent (PID 1) inside a real container, driven through
# `docker run -i` stdin/stdout by agent_client, with the production flags.
#
#   agent_test.sh [AGENT [IMAGE]]
#
# AGENT defaults to build/bin/sbx-agent, IMAGE to $SBX_TEST_IMAGE or
# mcp-sandbox/bash:latest; the agent is bind-mounted over /opt/sbx/agent.
# The client is $AGENT_CLIENT, else agent_client next to AGENT.
# $AGENT_TEST_DOCKER_ARGS adds `docker run` options (e.g. the runtime libs
# and ASAN_OPTIONS for a sanitizer build of the agent). The fork server
# part runs images/python-ml/forkserver.py in $SBX_ZYGOTE_IMAGE (default
# mcp-sandbox/python:latest). Builds nothing. Exit 0 pass, 1 fail (or no
# check ran), 77 skipped (Docker or an image missing, unless CI=true,
# where that is a failure).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
AGENT=${1:-$root/build/bin/sbx-agent}
IMAGE=${2:-${SBX_TEST_IMAGE:-mcp-sandbox/bash:latest}}
CLIENT=${AGENT_CLIENT:-$(dirname "$AGENT")/agent_client}

skip() {
	if [ "${CI:-}" = "true" ]; then
		echo "FAIL: $1 (CI=true)"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}

[ -x "$AGENT" ] || { echo "FAIL: no agent at $AGENT"; exit 1; }
[ -x "$CLIENT" ] || { echo "FAIL: no agent_client at $CLIENT"; exit 1; }
AGENT=$(cd "$(dirname "$AGENT")" && pwd)/$(basename "$AGENT")
docker info >/dev/null 2>&1 || skip "Docker is not reachable"
docker image inspect "$IMAGE" >/dev/null 2>&1 || skip "image $IMAGE not found"
ZYGOTE_IMAGE=${SBX_ZYGOTE_IMAGE:-mcp-sandbox/python:latest}
docker image inspect "$ZYGOTE_IMAGE" >/dev/null 2>&1 || skip "image $ZYGOTE_IMAGE (for the fork server) not found"

work=$(mktemp -d)
name=sbx-agent-test-$$
cleanup() {
	docker rm -f "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# The flags the host uses, plus the bind mount of the agent under test.
docker_run=(docker run -i --rm --name "$name"
	--read-only
	--tmpfs /work:rw,exec,nosuid,nodev,size=256m,uid=1000,gid=1000,mode=0700
	--tmpfs /tmp:rw,noexec,nosuid,nodev,size=64m
	--shm-size 64m
	--cap-drop ALL --cap-add SETUID --cap-add SETGID --cap-add SETPCAP
	--cap-add KILL
	--security-opt no-new-privileges --network none --pids-limit 128
	--memory 512m --ulimit nofile=1024 --ulimit core=0 --log-driver none
	-w /work --entrypoint /opt/sbx/agent
	-v "$AGENT:/opt/sbx/agent:ro"
	${AGENT_TEST_DOCKER_ARGS:-}
	"$IMAGE")

fails=0
passes=0
pass() {
	echo "ok   - $1"
	passes=$((passes + 1))
}
fail() { echo "FAIL - $1"; fails=$((fails + 1)); }
# has KEY=VALUE: the reply printed exactly this line
has() { grep -qxF -- "$1" "$work/out"; }
val() { sed -n "s/^$1=//p" "$work/out" | head -n 1; }
check() { # check DESCRIPTION KEY=VALUE...
	local what=$1 kv
	shift
	for kv in "$@"; do
		if ! has "$kv"; then
			fail "$what: expected $kv, got $(grep -- "^${kv%%=*}=" "$work/out" | head -n 3 | tr '\n' ' ')"
			return
		fi
	done
	pass "$what"
}
absent() { # absent DESCRIPTION KEY: the reply has no such field
	if grep -q "^$2=" "$work/out"; then fail "$1: unexpected $2"; else pass "$1"; fi
}

# Inputs prepared on this side.
head -c 1048576 /dev/urandom >"$work/blob.bin"
blob_sum=$(sha256sum "$work/blob.bin" | cut -d' ' -f1)
head -c 1048576 /dev/urandom >"$work/stdin.bin"
stdin_sum=$(sha256sum "$work/stdin.bin" | cut -d' ' -f1)
seq 1 200000 >"$work/seq.txt"

# Bash code that prints the name of every process but the agent and
# itself, then "end": anything an earlier execution left behind shows up.
# A process the agent has already killed (a pre-started interpreter it
# stopped with SIGKILL just before this call, say) may still be on its way
# out: SIGKILL pending, exiting (PF_EXITING), or dead and not yet reaped
# (a zombie). Such processes are waited for first, up to 5 s: they go by
# themselves; one that stays is listed, and a live one is listed at once.
LIST='dying() { local s k v; read -r s 2>/dev/null <$1/stat || return 1; s=(${s##*) }); [ "${s[0]}" = Z ] && return 0; (( s[6] & 4 )) && return 0; while read -r k v; do case $k in SigPnd:|ShdPnd:) (( 0x$v & 0x100 )) && return 0;; esac; done 2>/dev/null <$1/status; return 1; }; for i in {1..100}; do z=; for d in /proc/[0-9]*; do [ $d = /proc/$$ ] || ! dying $d || z=1; done; [ -z "$z" ] && break; sleep 0.05; done; for d in /proc/[0-9]*; do [ $d = /proc/1 ] || [ $d = /proc/$$ ] || { read -r c <$d/comm && echo $c; }; done; echo end'

# An execution that runs LIST.
left() {
	printf '%s\n' "exec $1" 'run bash' 'run -c' "run $LIST" "$ENV" call
}

ENV='env PATH=/usr/local/bin:/usr/bin:/bin
env HOME=/work
env LANG=C.UTF-8'

cat >"$work/script" <<EOF
hello 1

# streams and exit code
exec 2
file main.sh
data echo hi; echo err >&2; exit 3
run bash
run main.sh
$ENV
call

# identity, privileges, cwd, umask, inherited fds
exec 3
run bash
run -c
run id -u; id -g; id -G; pwd; umask; grep -E '^(CapEff|CapPrm|CapBnd|CapInh|CapAmb|NoNewPrivs)' /proc/self/status; ls /proc/\$\$/fd; true
$ENV
call

# the agent is out of reach
exec 4
run bash
run -c
run kill -9 1 2>/dev/null; echo kill=\$?; cat /proc/1/environ >/dev/null 2>&1; echo environ=\$?; ls /proc/1/fd >/dev/null 2>&1; echo fd=\$?
$ENV
call

# timeout with background processes: nothing survives
exec 5
run bash
run -c
run for i in 1 2 3 4 5; do (sleep 100 &); done; sleep 100 & sleep 100
timeout 700
$ENV
call
$(left 40)

# daemons started by a program that exits normally are killed
exec 6
run bash
run -c
run setsid nohup sleep 1000 >/dev/null 2>&1 & (setsid bash -c 'trap "" HUP TERM; exec sleep 1001' </dev/null >/dev/null 2>&1 &); (sleep 1002 &); echo started
$ENV
call
$(left 7)

# output cap: head and tail kept, marker between, never over the cap
exec 8
run seq
run 1
run 200000
$ENV
call
exec 9
run bash
run -c
run seq 1 5000 >&2
stderr_cap 1000
$ENV
call

# a 1 MiB file arrives intact, owned by the user, mode 0644
exec 10
file main.bin
datafile $work/blob.bin
run bash
run -c
run stat -c '%u %g %a %s' main.bin; sha256sum main.bin | cut -d' ' -f1
$ENV
call

# build failure stops before run; build success runs
exec 11
file main.sh
data echo RUN
build bash
build -c
build echo compiling; echo bad >&2; exit 2
run bash
run main.sh
$ENV
call
exec 12
file main.sh
data cat artifact
build bash
build -c
build echo built >artifact
run bash
run main.sh
$ENV
call

# exec failures: 127 with the reason on stderr; PATH from ENV
exec 13
run /nonexistent/program
$ENV
call
exec 14
run env
env PATH=/nonexistent
call

# environment is exactly ENV
exec 15
run /usr/bin/env
env A=1
env B=two words
call

# stdin, small and 1 MiB
exec 16
run cat
stdin hello
$ENV
call
exec 17
run bash
run -c
run sha256sum | cut -d' ' -f1
stdinfile $work/stdin.bin
$ENV
call

# seccomp deny list: mkdir fails with EPERM; unknown names are ignored;
# the filter does not stick to later executions
exec 18
run mkdir
run /work/x
seccomp mkdir
seccomp mkdirat
seccomp no_such_syscall_at_all
$ENV
call
exec 19
run bash
run -c
run mkdir /work/y && echo made
$ENV
call

# cancel, busy, unknown cancel; the "busy" replies say 20 is running
exec 20
run sleep
run 100
$ENV
send
exec 21
run true
send
wait 21
frame 3 22
wait 22
cancel 999
cancel 20
wait 20
$(left 41)

# bad input is answered, not fatal
frame 0x55 23
exec 24
file ../escape
run true
call
exec 25
env PATH=/bin
call
exec 26
run true
env NOEQUALS
call
hello 27

# reset after a mess: files everywhere, a 000 directory, a deep tree,
# a FIFO, a symlink, SysV objects, /work itself made read-only
exec 30
run bash
run -c
run echo mode=\$(stat -c %a /work)
$ENV
call
exec 31
file mess.sh
data set -e
data mkdir -p d/e && touch d/e/f d/g && chmod 000 d/e d && chmod 000 mess.sh
data deep=/work/deep; mkdir -p \$deep; cd \$deep; for i in \$(seq 150); do mkdir a; cd a; done; touch leaf; cd /work
data mkfifo fifo; ln -s /opt/sbx/agent link; ln link hard 2>/dev/null || true; touch .hidden
data echo t >/tmp/t; mkdir /tmp/td; touch /tmp/td/x; echo s >/dev/shm/s
data if command -v ipcmk >/dev/null; then ipcmk -M 4096 >/dev/null; ipcmk -Q >/dev/null; ipcmk -S 2 >/dev/null; echo ipc=\$(tail -n +2 -q /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem | wc -l); else echo ipc=none; fi
data (sleep 1000 &)
data chmod 500 /work
data echo messed
run bash
run mess.sh
$ENV
call
reset 32
exec 33
run bash
run -c
run echo mode=\$(stat -c %a /work); find /work /tmp /dev/shm /dev/mqueue -mindepth 1 | wc -l; tail -n +2 -q /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem | wc -l
$ENV
call
exec 34
file main.sh
data echo fine
run bash
run main.sh
$ENV
call

# artifacts: a file is counted once however many events it makes (created,
# then closed after writing), past the old cap of 10 000 events too; the
# same box after a reset counts the same
exec 35
run bash
run -c
run for i in \$(seq 6000); do echo x >f\$i; done
artifacts 50
$ENV
call
reset 36
exec 37
run bash
run -c
run for i in \$(seq 6000); do echo x >f\$i; done
artifacts 50
$ENV
call

# round trip of a trivial execution
exec 1000
run bash
run -c
run echo 1
$ENV
bench 200

# a corrupt stream is reported and does not kill the agent; what comes
# after the report (id 0) starts a new frame
raw ff ff ff ff 00
wait 0
hello 99
EOF

echo "# agent: $AGENT"
echo "# image: $IMAGE"
"$CLIENT" -t 60 -o "$work" "$work/script" -- "${docker_run[@]}" \
	>"$work/out" 2>"$work/err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "client exited $rc"
	sed 's/^/# /' "$work/err"
fi

check "hello" 1.type=HELLO_OK 1.version=4 1.workdir=/work
check "streams and exit code" 2.exit_code=3 '2.stdout=hi\n' '2.stderr=err\n' \
	2.phase=run 2.timed_out=0 2.cancelled=0 2.survivors=0 \
	2.stdout_trunc=0 2.stderr_trunc=0
check "uid, gid, groups, cwd, umask, capabilities, fds" \
	'3.stdout=1000\n1000\n1000\n/work\n0022\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n0\n1\n2\n'
check "cannot signal or inspect the agent" '4.stdout=kill=1\nenviron=1\nfd=2\n'
check "timeout" 5.type=EXEC_DONE 5.timed_out=1 5.signal=9 5.survivors=0 5.cancelled=0
absent "timeout has no exit code" 5.exit_code
# The timeout was honoured (how soon after it the kill came is bench/'s).
d=$(val 5.duration_ms)
if [ -n "$d" ] && [ "$d" -ge 700 ]; then pass "timeout duration ($d ms)"; else fail "timeout duration: $d"; fi
check "daemons after normal exit" 6.exit_code=0 '6.stdout=started\n' 6.survivors=0
check "nothing left after timeout" '40.stdout=end\n'
check "nothing left after daemons" '7.stdout=end\n'

check "stdout cap flags" 8.exit_code=0 8.stdout_trunc=1 8.stderr_trunc=0
out8="$work/8.stdout"
n8=$(wc -c <"$out8")
if [ "$n8" -le 102400 ] && [ "$n8" -ge 102300 ]; then pass "stdout within cap ($n8 bytes)"; else fail "stdout size $n8"; fi
if cmp -s <(head -c 51200 "$out8") <(head -c 51200 "$work/seq.txt"); then pass "head kept"; else fail "head differs"; fi
if cmp -s <(tail -c 51000 "$out8") <(tail -c 51000 "$work/seq.txt"); then pass "tail kept"; else fail "tail differs"; fi
if grep -aqE '^\.\.\. \[[0-9]+ bytes truncated\] \.\.\.$' "$out8"; then pass "truncation marker"; else fail "no truncation marker"; fi
total=$(wc -c <"$work/seq.txt")
dropped=$(grep -aoE '\[[0-9]+ bytes' "$out8" | grep -oE '[0-9]+')
marker_len=$(( ${#dropped} + 28 ))
if [ $((n8 - marker_len + dropped)) -eq "$total" ]; then pass "marker counts the dropped bytes"; else fail "marker count $dropped (total $total, kept $n8)"; fi
check "stderr cap" 9.stderr_trunc=1 9.stdout_trunc=0
n9=$(wc -c <"$work/9.stderr")
if [ "$n9" -le 1000 ] && [ "$n9" -ge 950 ]; then pass "stderr within cap ($n9)"; else fail "stderr size $n9"; fi

check "1 MiB file" 10.exit_code=0 "10.stdout=1000 1000 644 1048576\n$blob_sum\n"
check "build failure" 11.phase=build 11.exit_code=2 '11.stdout=compiling\n' '11.stderr=bad\n'
check "build then run" 12.phase=run 12.exit_code=0 '12.stdout=built\n'
check "exec failure" 13.exit_code=127 13.phase=run
grep -q '^13.stderr=sbx-agent: exec /nonexistent/program: No such file or directory' "$work/out" &&
	pass "exec failure reason" || fail "exec failure reason: $(val 13.stderr)"
check "PATH comes from ENV" 14.exit_code=127
check "environment is exactly ENV" 15.exit_code=0 '15.stdout=A=1\nB=two words\n'
check "stdin" '16.stdout=hello\n'
check "1 MiB stdin" "17.stdout=$stdin_sum\n"
check "seccomp deny" 18.exit_code=1
grep -q '^18.stderr=.*Operation not supported' "$work/out" &&
	pass "seccomp ENOTSUP" || fail "seccomp: $(val 18.stderr)"
check "seccomp filter does not stick" 19.exit_code=0 '19.stdout=made\n'
check "cancel" 20.type=EXEC_DONE 20.cancelled=1 20.timed_out=0 20.signal=9 20.survivors=0
check "nothing left after cancel" '41.stdout=end\n'
check "exec while busy" 21.type=ERROR 21.message=busy
check "reset while busy" 22.type=ERROR 22.message=busy
check "unknown frame type" 23.type=ERROR
check "bad file name" 24.type=ERROR
check "no RUN_ARG" 25.type=ERROR
check "bad ENV" 26.type=ERROR
check "still answering" 27.type=HELLO_OK

check "mess made" 31.exit_code=0
mode=$(val 30.stdout | sed 's/^mode=//; s/\\n$//')
if has '31.stdout=ipc=none\nmessed\n'; then
	fail "no ipcmk in $IMAGE: the SysV part of reset is not tested"
else
	check "SysV objects created" '31.stdout=ipc=3\nmessed\n'
fi
check "reset" 32.type=RESET_DONE 32.ok=1
check "verified empty after reset" "33.stdout=mode=$mode\n0\n0\n"
check "usable after reset" '34.stdout=fine\n'

check "artifacts: 6000 files, 50 listed, 5950 more" 35.exit_code=0 35.artifacts=50 35.artifacts_more=5950
check "artifacts: the same on the same box after a reset" 36.ok=1 37.artifacts=50 37.artifacts_more=5950
check "bench" bench.failures=0
p50=$(val bench.p50_us)
echo "# trivial exec round trip: min $(val bench.min_us) us, p50 $p50 us, p90 $(val bench.p90_us) us, max $(val bench.max_us) us"

check "corrupt stream reported" 0.type=ERROR '0.message=corrupt frame stream'
check "alive after corrupt stream" 99.type=HELLO_OK
check "clean exit on stdin EOF" agent.exit=0

# The fork server (agent/zygote.h): images/python-ml/forkserver.py mounted
# as /opt/sbx/zygote into the python image, with a light preload list.
ZENV='env PATH=/usr/bin:/bin
env HOME=/work
env SBX_ZYGOTE_PRELOAD=json'
zpy() { # zpy ID CODE [directive...]: run CODE as main.py with python3 -u -B
	local id=$1 code=$2
	shift 2
	printf '%s\n' "exec $id" 'file main.py' "data $code" 'run python3' 'run -u' 'run -B' 'run main.py' "$ZENV" "$@" call
}
# Every process but the agent, this one and the fork server (its parent).
zleft='import os; me = os.getpid(); ppid = os.getppid(); print(sorted(open(f"/proc/{p}/cmdline").read() for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me, ppid)), ppid)'
{
	zpy 201 'import os, sys; s = open("/proc/self/status").read(); print(os.getuid(), os.getgid(), os.getppid() != 1, os.getcwd(), sys.argv, sys.path[0], __file__, [l for l in s.splitlines() if l.startswith(("CapEff", "CapPrm", "CapBnd", "NoNewPrivs"))], sorted(os.listdir("/proc/self/fd")))'
	zpy 202 'import os, random; print(os.getppid(), random.random())'
	zpy 203 'import os, random; print(os.getppid(), random.random())'
	printf '%s\n' 'exec 204' 'file main.py' 'data def f():' 'data     raise ValueError("boom")' 'data f()' \
		'run python3' 'run -u' 'run -B' 'run main.py' "$ZENV" call
	zpy 205 'import subprocess, time; subprocess.Popen(["setsid", "sleep", "100"]); time.sleep(100)' 'timeout 2000'
	zpy 206 "$zleft"
	zpy 207 'import subprocess; subprocess.Popen(["setsid", "sleep", "100"]); print("daemon")'
	zpy 208 "$zleft"
	echo 'reset 209'
	zpy 210 "$zleft"
	zpy 211 'import sys; print(sys.stdin.read().strip()); sys.exit(4)' 'stdin from stdin'
	zpy 212 'import os; os.mkfifo("x")' 'seccomp mknodat' 'seccomp mknod'
	zpy 213 'import os; print(os.getppid() != 1)'
} >"$work/zscript"
zrun=("${docker_run[@]}")
unset 'zrun[${#zrun[@]}-1]'
zrun+=(-v "$here/../../images/python-ml/forkserver.py:/opt/sbx/zygote:ro" "$ZYGOTE_IMAGE")
"$CLIENT" -t 60 -o "$work" "$work/zscript" -- "${zrun[@]}" >>"$work/out" 2>>"$work/err" ||
	fail "fork server client exited $?"
check "fork server: uid, caps, cwd, argv, fds" 201.exit_code=0 \
	"201.stdout=1000 1000 True /work ['main.py'] /work /work/main.py ['CapPrm:\\\\t0000000000000000', 'CapEff:\\\\t0000000000000000', 'CapBnd:\\\\t0000000000000000', 'NoNewPrivs:\\\\t1'] ['0', '1', '2', '3']\n"
z2=$(val 202.stdout) z3=$(val 203.stdout)
if [ -n "$z2" ] && [ "${z2%% *}" = "${z3%% *}" ] && [ "${z2%% *}" != 1 ] && [ "${z2#* }" != "${z3#* }" ]; then
	pass "fork server: same server, different random state"
else
	fail "fork server: random state or server: '$z2' vs '$z3'"
fi
check "fork server: exception" 204.exit_code=1 \
	'204.stderr=Traceback (most recent call last):\n  File "/work/main.py", line 3, in <module>\n    f()\n  File "/work/main.py", line 2, in f\n    raise ValueError("boom")\nValueError: boom\n'
check "fork server: timeout" 205.timed_out=1 205.signal=9 205.survivors=0
for id in 206 208 210; do
	if val $id.stdout | grep -q '^\[\] [0-9]'; then pass "fork server: nothing left ($id)"; else fail "fork server: left over ($id): $(val $id.stdout)"; fi
done
check "fork server: daemon after normal exit" 207.exit_code=0 '207.stdout=daemon\n' 207.survivors=0
check "fork server: reset with the server running" 209.type=RESET_DONE 209.ok=1
if [ "$(val 208.stdout | sed 's/.* //')" = "$(val 210.stdout | sed 's/.* //')" ]; then
	pass "fork server survives the reset"
else
	fail "fork server restarted by reset: $(val 208.stdout) / $(val 210.stdout)"
fi
check "fork server: stdin and sys.exit" 211.exit_code=4 '211.stdout=from stdin\n'
check "fork server: seccomp deny list" 212.exit_code=1
grep -q '^212.stderr=.*Operation not supported' "$work/out" &&
	pass "fork server: seccomp ENOTSUP" || fail "fork server seccomp: $(val 212.stderr)"
check "fork server: back after the seccomp change" '213.stdout=True\n'

# The pre-started interpreter (agent/prestart.h, docs/prestart.md): bash
# waiting in its BASH_ENV file, as the bash plugin declares it.
PENV="$ENV"
{
	printf '%s\n' 'hello 300' 'exec 301' 'file main.sh' 'run bash' 'run main.sh' "$PENV" \
		'waitenv BASH_ENV=/opt/sbx/prestart.bash' 'prestart 301'
	# It takes a call that fits, with arguments added and stdin.
	printf '%s\n' 'exec 302' 'file main.sh' \
		'data echo "$0|$#|$1|$2|$(cat)|${BASH_ENV-unset}|$(stat -c "%U %a" main.sh)|$PPID"; fds=(/proc/$$/fd/*); echo "${fds[*]##*/}"' \
		'run bash' 'run main.sh' 'run a' 'run b c' "$PENV" 'stdin in' call
	echo 'reset 303'
	# Without stdin: /dev/null, as for a call the agent started.
	printf '%s\n' 'exec 304' 'file main.sh' 'data readlink /proc/$$/fd/0; echo "$#"' \
		'run bash' 'run main.sh' "$PENV" call
	echo 'reset 305'
	# A call that does not fit (one more variable) stops it before it runs.
	printf '%s\n' 'exec 306' 'file main.sh' \
		"data $LIST" \
		'run bash' 'run main.sh' "$PENV" 'env X=1' call
	echo 'reset 307'
	# A call with a build step: the build runs, then the waiting bash.
	printf '%s\n' 'exec 308' 'file prog.sh' 'data echo built' 'build cp' 'build prog.sh' 'build main.sh' \
		'run bash' 'run main.sh' "$PENV" call
	echo 'reset 309'
	# Timed out in the waiting bash: killed like any program.
	printf '%s\n' 'exec 310' 'file main.sh' 'data sleep 100' 'run bash' 'run main.sh' "$PENV" 'timeout 500' call
	echo 'reset 311'
	left 312
} >"$work/pscript"
"$CLIENT" -t 60 -o "$work" "$work/pscript" -- "${docker_run[@]}" >>"$work/out" 2>>"$work/err" ||
	fail "pre-started client exited $?"
check "prestart: waiting before the reply" 301.type=PRESTART_DONE 301.ok=1
check "prestart: arguments, stdin, BASH_ENV gone, the file the user's" 302.exit_code=0 302.prestarted=1 \
	'302.stdout=main.sh|2|a|b c|in|unset|sandbox 644|1\n0 1 2 255 3\n'
check "prestart: the next one waits after the reset" 303.ok=1 304.exit_code=0 304.prestarted=1 '304.stdout=/dev/null\n0\n'
check "prestart: a call that does not fit runs alone" 306.exit_code=0 306.prestarted=0 '306.stdout=end\n'
check "prestart: after a build" 308.exit_code=0 308.prestarted=1 '308.stdout=built\n'
check "prestart: timeout" 310.timed_out=1 310.prestarted=1 310.survivors=0
check "prestart: a call that does not fit sees no waiting bash" 312.exit_code=0 '312.stdout=end\n'

# AP_PRESTART into a container something already ran in: no interpreter
# until the next clean reset.
{
	printf '%s\n' 'hello 400' 'exec 401' 'file main.sh' 'data echo one' 'run bash' 'run main.sh' "$PENV" call
	printf '%s\n' 'exec 402' 'file main.sh' 'run bash' 'run main.sh' "$PENV" \
		'waitenv BASH_ENV=/opt/sbx/prestart.bash' 'prestart 402'
	printf '%s\n' 'exec 403' 'file main.sh' 'data echo two' 'run bash' 'run main.sh' "$PENV" call
	echo 'reset 404'
	printf '%s\n' 'exec 405' 'file main.sh' 'data echo three' 'run bash' 'run main.sh' "$PENV" call
} >"$work/pscript2"
"$CLIENT" -t 60 -o "$work" "$work/pscript2" -- "${docker_run[@]}" >>"$work/out" 2>>"$work/err" ||
	fail "pre-started (used container) client exited $?"
check "prestart: none into a used container" 402.ok=1 403.prestarted=0 '403.stdout=two\n'
check "prestart: the clean reset starts it" 404.ok=1 405.prestarted=1 '405.stdout=three\n'

# Background processes (AP_SPAWN, AP_PROC; agent/bg.h): only in a kept
# container; they outlive a call's end and its kill, and what they start
# too; output, signal and wait; the agent's own end kills them.
{
	printf '%s\n' 'hello 500' 'exec 501' 'run sh' 'run -c' 'run echo no' "$ENV" 'label no' 'spawn 501'
	echo 'frame 6 0'
	printf '%s\n' 'exec 502' 'run sh' 'run -c' 'run echo hi; sleep 300 & sleep 301; exit 4' "$ENV" 'label bg' 'spawn 502'
	# A call's end kills what the call started, not the background group.
	printf '%s\n' 'exec 503' 'run sh' 'run -c' 'run setsid sleep 302 & echo ran' "$ENV" call
	printf '%s\n' 'exec 504' 'run bash' 'run -c' "run { $LIST; } >/tmp/l; sort /tmp/l" "$ENV" call
	echo 'proc 505 list'
	echo 'proc 506 logs 0'
	echo 'proc 507 wait 0'
	echo 'proc 508 signal 15'
	echo 'proc 509 wait 5000'
	left 510
} >"$work/bscript"
# A kept container outlives its host's stdin: once the last reply is in,
# the container is removed, which ends the client.
"$CLIENT" -t 60 -o "$work" "$work/bscript" -- "${docker_run[@]}" >"$work/bout" 2>>"$work/err" &
bpid=$!
for _ in $(seq 600); do grep -q '^510.stdout' "$work/bout" && break; sleep 0.1; done
docker rm -f "$name" >/dev/null 2>&1
wait $bpid
cat "$work/bout" >>"$work/out"
check "background: refused in a container that is not kept" 501.type=PROC_DONE 501.status=4
check "background: started once kept" 502.status=0 502.processes=1 502.0.state=1
check "background: a call's end leaves it and its children, kills its own" 503.exit_code=0 503.survivors=0 \
	'504.stdout=end\nsh\nsleep\nsleep\n'
check "background: listed, output kept, still running" 505.processes=1 505.0.state=1 '506.data=hi\n' 507.timed_out=1
check "background: TERM to the group, then wait" 508.status=0 509.timed_out=0 509.0.state=3 509.0.code=15
check "background: nothing left once it ended" '510.stdout=end\n'

if [ $passes -eq 0 ] && [ $fails -eq 0 ]; then
	fail "no check ran"
fi
if [ $fails -ne 0 ]; then
	echo "# agent log:"
	sed 's/^/#   /' "$work/err"
	echo "FAILED: $fails checks"
	exit 1
fi
echo "PASS: $passes checks"
exit 0
