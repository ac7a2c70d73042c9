#!/usr/bin/env bash
# Command two: everything CI runs.
#
#   scripts/test.sh
#
# Prepares the machine as scripts/setup.sh does (without its demo), then
# runs the suite's layers:
#
#   static       clang-format --dry-run --Werror on every tracked *.c/*.h
#                (one check per file); cppcheck and clang-tidy on the
#                code that ships (one check each)
#   unit         ctest -L unit in build/, then again under ASan/UBSan in
#                build-asan/: both runs count here; then the libFuzzer
#                harnesses (tests/fuzz, clang, ASan/UBSan) for
#                SBX_FUZZ_SECONDS each (default 30): one check each
#   integration  ctest -L integration (real Docker: the engine layer, the
#                agent, the session interpreters)
#   end-to-end   tests/e2e/run.mjs (the real server, the official MCP SDK,
#                real Docker; the adversarial suite a second time with the
#                code blocklist off), then a check that they left no
#                container, volume or network on the engine, and one that
#                no process the suite started still runs (one check each)
#
# On 2 cores most of the suite waits (for containers, timeouts, registries),
# so the steps share the machine where they cannot disturb each other:
#
#   npm ci (tests/e2e)   beside set-up, until the end-to-end tests need it
#                        (the tree of the same lock file from before when
#                        there is one: SBX_NPM_TREES, at npm_tree)
#   setup                (every build through ccache when there is one:
#                        a clean clone's unchanged files are not compiled
#                        again; SBX_CCACHE=off compiles them all)
#   static               in the background at the lowest CPU priority;
#                        clang-tidy skips the files whose inputs it passed
#                        before (SBX_TIDY_CACHE, at tidy_keys below),
#                        cppcheck those it analysed before
#                        (SBX_CPPCHECK_CACHE, at cppcheck_check)
#   ASan build, unit     in the background at a low CPU priority: the ASan
#     under ASan, fuzz   build, its unit tests (ctest -j), then the fuzz
#     build, fuzzers     build and the four fuzzers side by side there
#   unit                 ctest -j, in the background at a low priority
#   end-to-end, alone    run.mjs: the files that must run alone, one after
#                        the other (tests/e2e/README.md); they mostly wait,
#                        the background steps take the CPU they leave
#   end-to-end, side by  run.mjs, once the unit tests under ASan are done:
#                        the other files, several at a time (the
#     side; integration  soak among them, against build-asan's server),
#                        with the integration tests (ctest -j) beside them;
#                        then the checks of what the end-to-end tests left
#
# and ends with each step's wall time and when it started (seconds into the
# run), each layer's wall time (from its first step's start to its last's
# end: they overlap), the counts per layer
# on one line, then, alone on the last line, "N passed, N failed" (CI reads
# it). Exits non-zero if anything failed or a layer ran nothing. Under
# CI=true the Docker-bound tests fail instead of skipping when Docker or an
# image is missing.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$SBX_ROOT"
if [ -n "${CI+set}" ]; then export CI; fi
T0=$(sbx_now)
LAYERS=(static unit integration end-to-end)
JOBS=$(nproc)
# Every build here (build/ through setup.sh, build-asan/, build-fuzz/)
# compiles through ccache when the machine has it (setup.sh installs it):
# an unchanged file of a fresh clone is not compiled again. Their debug
# information may name the directory an object was first compiled in.
sbx_use_ccache
export CCACHE_NOHASHDIR=true
# What the steps report (some run in a subshell in the background), one
# line each: "count LAYER PASSED FAILED", "failed LAYER WHAT",
# "time LAYER START END STEP".
res=$(mktemp -d)
: >"$res/report"
procs_cg=

# descendants PID: the live processes below PID.
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 }
		END { for (p in parent) { q = p; while ((q in parent) && q != root && q > 1) q = parent[q]; if (q == root && p != root) print p } }'
}
# On the way out (a normal end has nothing left to stop): what this script
# started and still runs, and what the Docker-bound tests started and left
# (their cgroup, below).
cleanup() {
	local left
	left=$(descendants $$)
	# shellcheck disable=SC2086 # one pid a word
	[ -z "$left" ] || kill $left 2>/dev/null || true
	if [ -n "$procs_cg" ]; then
		left=$(running_left)
		# shellcheck disable=SC2086
		[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
		cg_release
	fi
	rm -rf "$res"
}
trap cleanup EXIT

count() { echo "count $1 $2 $3" >>"$res/report"; }
# A failed step of LAYER, named WHAT in the summary: the layer counts at
# least one failure, whatever the runner's own summary said (or did not).
layer_failed() { echo "failed $1 ${2:-}" >>"$res/report"; }

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }

summary() {
	local l kind layer rest a b what line p=0 f=0 steps="" nfailed=0 failed=""
	local -A npass nfail hasfail first last
	for l in "${LAYERS[@]}"; do
		npass[$l]=0
		nfail[$l]=0
		hasfail[$l]=0
	done
	while read -r kind layer rest; do
		case $kind in
		count)
			read -r a b <<<"$rest"
			npass[$layer]=$((npass[$layer] + a))
			nfail[$layer]=$((nfail[$layer] + b))
			;;
		failed)
			hasfail[$layer]=1
			nfailed=$((nfailed + 1))
			failed+="${failed:+, }$layer${rest:+ ($rest)}"
			;;
		time)
			read -r a b what <<<"$rest"
			steps+="${steps:+; }$what $(secs "$a" "$b") s from $(secs "$T0" "$a")"
			[ -n "${first[$layer]:-}" ] || first[$layer]=$a
			last[$layer]=$b
			;;
		esac
	done <"$res/report"
	sbx_log ""
	sbx_log "test.sh: $nfailed step(s) failed${failed:+: $failed} in $(sbx_since "$T0")"
	echo "steps: $steps"
	line=""
	for l in setup "${LAYERS[@]}"; do
		[ -z "${first[$l]:-}" ] || line+="${line:+; }$l $(secs "${first[$l]}" "${last[$l]}") s"
	done
	echo "layers: $line (each from its first step's start to its last's end: they overlap); all $(secs "$T0" "$(sbx_now)") s"
	line=""
	for l in "${LAYERS[@]}"; do
		[ "${hasfail[$l]}" -eq 0 ] || [ "${nfail[$l]}" -gt 0 ] || nfail[$l]=1
		line+="${line:+; }$l ${npass[$l]} passed, ${nfail[$l]} failed"
		p=$((p + npass[$l]))
		f=$((f + nfail[$l]))
	done
	echo "$line"
	# A failure before any layer ran (setup): the last line must not say 0 failed.
	[ "${hasfail[setup]:-0}" -eq 0 ] || f=$((f + 1))
	echo "$p passed, $f failed"
	[ "$nfailed" -eq 0 ]
}

# step LAYER NAME COMMAND...: runs the command under a header and notes its
# wall time; returns its status.
step() {
	local layer=$1 name=$2 t rc=0
	shift 2
	sbx_step "$layer: $name"
	t=$(sbx_now)
	"$@" || rc=$?
	echo "time $layer $t $(sbx_now) $name" >>"$res/report"
	return "$rc"
}

# bg_step NAME NICENESS COMMAND...: the command in the background at that
# CPU priority (19: only what the rest leaves), its output kept for
# collect NAME.
bg_step() {
	local name=$1 nice=$2
	shift 2
	(
		renice -n "$nice" -p "$BASHPID" >/dev/null
		"$@" || true
	) >"$res/$name.log" 2>&1 &
	echo $! >"$res/$name.pid"
}

# collect NAME: waits for a background step and prints its output.
collect() {
	wait "$(cat "$res/$1.pid")" || true
	sbx_log ""
	sbx_log "--- $1 ran in the background beside the steps above; its output:"
	cat "$res/$1.log" >&2
}

# ---- npm ci ----
# The end-to-end tests' packages install while the rest runs (npm ci
# fetches and unpacks them). From the start when this machine has its Node
# already, else once set-up and the tool installs below have it.
#
# The tree npm ci makes (780 MB, about 36 CPU seconds to unpack) is kept
# by the hash of the lock file and Node's version under SBX_NPM_TREES
# (default ~/.cache/mcp-sandbox/e2e-modules; "off" runs npm ci every
# time): a clean clone with the same lock file gets a copy of hard links
# of it. Only the last tree is kept. The tests do not write into
# node_modules; a file changed in place there would change the kept tree.
npm_pid=
npm_log=$res/npm.log
npm_tree() {
	local trees key
	trees=${SBX_NPM_TREES:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-sandbox/e2e-modules}
	key=$({ cat package-lock.json && node --version; } | sha256sum | cut -c1-16)
	if [ "$trees" != off ] && [ -f "$trees/$key/complete" ] && rm -rf node_modules &&
		cp -al "$trees/$key/node_modules" node_modules; then
		echo "node_modules: the tree of this lock file, from $trees/$key"
		return 0
	fi
	npm ci --no-audit --no-fund || return
	[ "$trees" != off ] || return 0
	# Kept only once whole: "complete" is written last.
	if rm -rf "$trees" && mkdir -p "$trees/$key" &&
		cp -al node_modules "$trees/$key/node_modules"; then
		: >"$trees/$key/complete"
	fi
}
npm_ci() {
	[ -z "$npm_pid" ] && [ -f tests/e2e/package-lock.json ] || return 0
	(cd tests/e2e && npm_tree) >"$npm_log" 2>&1 &
	npm_pid=$!
}
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -ge 18 ] &&
	command -v npm >/dev/null 2>&1; then
	npm_ci
fi

# ---- setup ----
t=$(sbx_now)
if ! scripts/setup.sh --no-demo; then
	layer_failed setup scripts/setup.sh
	summary || exit 1
fi
echo "time setup $t $(sbx_now) setup" >>"$res/report"

# The suite's own tools; any clang-format, cppcheck and clang-tidy on the
# PATH will do. clang builds the fuzz harnesses (tests/fuzz) with its
# libFuzzer; the engines the end-to-end tests start (tests/e2e/lib/
# engines.mjs) get bridges of their own with ip, and one is a Podman service
# (a rootless one too: newuidmap); a preview link is opened in headless
# Chromium (services.test.mjs).
tools=()
for t in clang-format:clang-format clang:clang cppcheck:cppcheck \
	run-clang-tidy:clang-tidy ip:iproute2 podman:podman newuidmap:uidmap \
	chromium:chromium; do
	command -v "${t%%:*}" >/dev/null 2>&1 || tools+=("${t#*:}")
done
# The end-to-end tests run on Node (setup.sh --languages may not have
# needed it).
if ! node_pkgs=$(sbx_node_pkgs); then
	layer_failed setup node
	summary || exit 1
fi
read -ra node <<<"$node_pkgs"
tools+=(${node[@]+"${node[@]}"})
# A session's notebook is validated by nbformat's own validator
# (history.test.mjs), in Debian's python3.
/usr/bin/python3 -c 'import nbformat' 2>/dev/null || tools+=(python3-nbformat)
if [ "${#tools[@]}" -gt 0 ] && ! sbx_apt_install "${tools[@]}"; then
	layer_failed setup "installing ${tools[*]}"
	summary || exit 1
fi
npm_ci

# ctest's "N% tests passed, F tests failed out of T", less the tests it
# lists as not run (skipped: exit 77, never under CI=true).
count_ctest() { # count_ctest LAYER LOG
	local t f s
	f=$(sed -n 's/.* \([0-9]*\) tests failed out of \([0-9]*\).*/\1/p' "$2" | tail -n1)
	t=$(sed -n 's/.* tests failed out of \([0-9]*\).*/\1/p' "$2" | tail -n1)
	s=$(grep -cE '^[[:space:]]*[0-9]+ - .* \((Skipped|Not Run|Disabled)\)$' "$2" || true)
	count "$1" $((${t:-0} - ${f:-0} - s)) "${f:-0}"
}

# ctest_layer LAYER DIR LABEL WHAT [VAR=VALUE...]: the tests labelled LABEL
# in the build tree DIR (with those variables set), all cores at once,
# counted in LAYER; a failure is reported as WHAT.
ctest_layer() {
	local layer=$1 dir=$2 label=$3 what=$4 log
	shift 4
	log=$(mktemp -p "$res")
	if env "$@" ctest --test-dir "$dir" -L "^$label\$" -j"$JOBS" --output-on-failure --no-tests=error 2>&1 | tee "$log"; then
		count_ctest "$layer" "$log"
	else
		count_ctest "$layer" "$log"
		layer_failed "$layer" "$what"
	fi
}

# ---- static ----
format_check() {
	local bad ok out rc=0
	if ! command -v clang-format >/dev/null 2>&1; then
		sbx_log "error: clang-format is missing (scripts/setup.sh installs it)"
		layer_failed static clang-format
		return
	fi
	mapfile -t sources < <(git ls-files -- '*.c' '*.h')
	if [ "${#sources[@]}" -eq 0 ]; then
		layer_failed static "no C file found"
		return
	fi
	# One process for every file (one a file cost a second of CPU per
	# hundred files); each file that differs is named in its messages
	# ("FILE:LINE:COL: error: code should be clang-formatted").
	out=$(mktemp -p "$res")
	clang-format --dry-run --Werror "${sources[@]}" >"$out" 2>&1 || rc=$?
	bad=$({ grep -oE '^[^:]+\.[ch]:[0-9]+:[0-9]+: error' "$out" || true; } | cut -d: -f1 | sort -u | wc -l)
	ok=$((${#sources[@]} - bad))
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		cat "$out" >&2
		count static "$ok" 1
		layer_failed static "clang-format exited $rc"
		return
	fi
	count static "$ok" "$bad"
	if [ "$bad" -ne 0 ]; then
		cat "$out" >&2
		sbx_log "$bad file(s) differ from .clang-format: run clang-format -i on them"
		layer_failed static format
	fi
}

# Static analysis: cppcheck on everything the build compiles (tests too),
# clang-tidy on the code that ships (host, agent, common, plugins, sdk),
# from the build's compile_commands.json; both must report nothing. Their
# suppressions, each with its reason, are in .clang-tidy and
# scripts/cppcheck-cjson.cfg.
#
# cppcheck keeps what it found in each file, and the file's checksum, in
# its build directory (SBX_CPPCHECK_CACHE, default
# ~/.cache/mcp-sandbox/cppcheck; "off" for a new one each run), and
# analyses again only the files whose preprocessed code changed; the whole
# program checks (a null passed to a function that dereferences it, across
# files) run on every file's stored summary each time.
cppcheck_check() {
	local out dir
	out=$(mktemp -p "$res")
	dir=${SBX_CPPCHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-sandbox/cppcheck}
	if [ "$dir" = off ] || ! mkdir -p "$dir"; then
		dir=$(mktemp -d -p "$res")
	fi
	if ! command -v cppcheck >/dev/null 2>&1; then
		sbx_log "error: cppcheck is missing (scripts/setup.sh installs it)"
		layer_failed static cppcheck
	elif cppcheck --project=build/compile_commands.json \
		--enable=warning,portability,performance --inline-suppr \
		--library=scripts/cppcheck-cjson.cfg --error-exitcode=1 --quiet \
		--cppcheck-build-dir="$dir" -j"$JOBS" >"$out" 2>&1 && [ ! -s "$out" ]; then
		count static 1 0
	else
		cat "$out" >&2
		layer_failed static cppcheck
	fi
}

# clang-tidy's verdict on a file depends only on what it reads: the
# compile command, every file the compiler read for it (the build's
# dependency file), .clang-tidy and clang-tidy itself. A file whose key (a
# hash of all that) was in a clean run before is not analysed again: the
# keys of a clean run are kept under SBX_TIDY_CACHE (default
# ~/.cache/mcp-sandbox/clang-tidy; "off" analyses every file). A file
# without a dependency file has no key and is always analysed.
tidy_keys() { # prints "KEY FILE" (KEY "-" when there is none) for each file
	python3 - "$SBX_ROOT" "$1" <<-'EOF'
		import hashlib, json, os, re, shlex, sys
		root, version = sys.argv[1], sys.argv[2]
		ship = re.compile(re.escape(root) + r"/(host|agent|common|plugins|sdk)/.*\.c$")
		base = hashlib.sha256(version.encode())
		with open(os.path.join(root, ".clang-tidy"), "rb") as f:
		    base.update(f.read())
		for e in json.load(open(os.path.join(root, "build/compile_commands.json"))):
		    src = os.path.join(e["directory"], e["file"])
		    if not ship.match(src):
		        continue
		    args = e.get("arguments") or shlex.split(e["command"])
		    key = "-"
		    if "-o" in args:
		        dep = os.path.join(e["directory"], args[args.index("-o") + 1] + ".d")
		        try:
		            text = open(dep).read().replace("\\\n", " ")
		            h = base.copy()
		            # Where the tree is cloned does not matter.
		            h.update(json.dumps([e["directory"], args]).replace(root, "").encode())
		            # Each file by its absolute path (ccache writes them
		            # relative), less the tree's own.
		            deps = text.split(":", 1)[1].split()
		            paths = {os.path.normpath(os.path.join(e["directory"], d)) for d in deps}
		            for name, p in sorted((p.replace(root, ""), p) for p in paths):
		                h.update(name.encode() + b"\0")
		                with open(p, "rb") as f:
		                    h.update(hashlib.sha256(f.read()).digest())
		            key = h.hexdigest()
		        except (OSError, IndexError):
		            key = "-"
		    print(key, src)
	EOF
}

tidy_check() {
	local out keys cache key file todo=() kept=0 re
	out=$(mktemp -p "$res")
	keys=$(mktemp -p "$res")
	if ! command -v run-clang-tidy >/dev/null 2>&1; then
		sbx_log "error: clang-tidy is missing (scripts/setup.sh installs it)"
		layer_failed static clang-tidy
		return
	fi
	cache=${SBX_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-sandbox/clang-tidy}
	if ! tidy_keys "$(clang-tidy --version 2>&1)" >"$keys" || [ ! -s "$keys" ]; then
		layer_failed static "clang-tidy: no file to analyse in build/compile_commands.json"
		return
	fi
	while read -r key file; do
		if [ "$cache" != off ] && [ "$key" != - ] && [ -e "$cache/$key" ]; then
			kept=$((kept + 1))
		else
			todo+=("$file")
		fi
	done <"$keys"
	sbx_log "clang-tidy: ${#todo[@]} file(s) to analyse, $kept unchanged since a clean run ($cache)"
	if [ "${#todo[@]}" -eq 0 ]; then
		count static 1 0
		return
	fi
	# Exact paths, as one regular expression for run-clang-tidy (every
	# character but a letter, a digit, _, / and - escaped).
	re=$(printf '%s\n' "${todo[@]}" | sed 's/[^A-Za-z0-9_/-]/\\&/g' | paste -sd'|')
	run-clang-tidy -p build -j"$JOBS" -quiet "^($re)\$" >"$out" 2>&1 || true
	if grep -qE '(warning|error):' "$out"; then
		grep -E '(warning|error):' "$out" >&2
		layer_failed static clang-tidy
	elif ! grep -q 'clang-tidy' "$out"; then
		cat "$out" >&2
		layer_failed static "clang-tidy ran on nothing"
	else
		count static 1 0
		if [ "$cache" != off ] && mkdir -p "$cache"; then
			while read -r key file; do
				[ "$key" = - ] || : >"$cache/$key"
			done <"$keys"
		fi
	fi
}

static_layer() {
	step static "clang-format" format_check || true
	step static cppcheck cppcheck_check || true
	step static clang-tidy tidy_check || true
}
# It reads the sources and build/compile_commands.json only: it runs beside
# everything else, on the CPU they leave.
bg_step static 19 static_layer

# ---- the builds: ASan/UBSan, then the fuzz harnesses ----
# In the background at a low CPU priority (the tests beside them go first):
# the ASan build and the unit tests again under AddressSanitizer and UBSan
# (the static agent and the Docker-bound tests are not instrumented there),
# beside the files that run alone (they mostly wait: beside the files that
# run side by side, the plugin kit's bound on a lexer's speed, 10 s for 4
# MiB, failed under ASan), then the fuzzers; "asan.done" says when those
# unit tests are done and build-asan is there (or failed).
asan_build() {
	if ! { cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON $SBX_LAUNCHER >/dev/null &&
		cmake --build build-asan -j"$JOBS" >/dev/null; }; then
		layer_failed unit "asan build"
		return 1
	fi
}
fuzz_build() {
	if ! { CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON \
		-DSBX_FUZZ=ON -DSBX_WERROR=OFF $SBX_LAUNCHER >/dev/null &&
		cmake --build build-fuzz -j"$JOBS" --target fuzz_agent_codec fuzz_mcp_line fuzz_lex \
		fuzz_http_message >/dev/null; }; then
		layer_failed unit "fuzz build"
		return 1
	fi
}
# The libFuzzer harnesses: the agent protocol's reader and decoders, a
# client's line through the MCP server, the plugins' lexers (seeded with
# the blocklist corpus) and a session server's HTTP answers, each for a
# bounded time. A crash, a leak or undefined behaviour fails with the
# input that caused it.
fuzz_one() { # fuzz_one HARNESS
	local h=$1 corpus seeds=() out
	corpus=$(mktemp -d -p "$res")
	out=$res/fuzz_$h.out
	if [ "$h" = lex ]; then
		seeds=("$SBX_ROOT"/tests/blocklist/corpus/* "$SBX_ROOT"/tests/blocklist/caught/*)
	elif [ -d "tests/fuzz/seeds/$h" ]; then
		seeds=("$SBX_ROOT/tests/fuzz/seeds/$h")
	fi
	if (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
		"bin/fuzz_$h" -max_total_time="${SBX_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 "$corpus" "${seeds[@]}") >"$out" 2>&1; then
		count unit 1 0
		sbx_log "fuzz_$h: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$out" | tail -n1)"
	else
		tail -n 40 "$out" >&2
		layer_failed unit "fuzz_$h"
	fi
	rm -rf "$corpus"
}
# The fuzzers, side by side, each for its fixed time.
fuzzers() {
	local h pids=()
	for h in agent_codec mcp_line lex http_message; do
		step unit "fuzz_$h" fuzz_one "$h" >"$res/fuzz_$h.log" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	for h in agent_codec mcp_line lex http_message; do cat "$res/fuzz_$h.log"; done
}
builds() {
	local rc=0
	step unit "asan build" asan_build || rc=$?
	if [ "$rc" -eq 0 ]; then
		step unit "asan ctest" ctest_layer unit build-asan unit asan \
			ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1
	fi
	echo "$rc" >"$res/asan.done"
	if step unit "fuzz build" fuzz_build; then
		fuzzers
	fi
}
bg_step builds 10 builds

# ---- unit ----
# In the background at a low CPU priority, beside the files that run alone
# (the unit tests need no engine).
bg_step unit 10 step unit "unit ctest" ctest_layer unit build unit ctest

# ---- end-to-end, and integration beside it ----
# What is on the engine before the Docker-bound tests run: whatever they add
# and leave (a container, a volume or a network, by name) fails the
# end-to-end layer at the end. The one exception is the server's own
# package cache volume (docs/packages.md), which a server keeps on purpose.
engine_objects() {
	{
		docker ps -a --format 'container {{.Names}}'
		docker volume ls --format 'volume {{.Name}}'
		docker network ls --format 'network {{.Name}}'
	} 2>/dev/null | grep -vx 'volume mcp-sandbox-packages' | sort
}
engine_before=$(engine_objects)

# Every process the Docker-bound tests start (servers, dockerds, Podman
# services, whatever those start in turn) stays in a cgroup of the run's
# own, daemon or not: what is left in it at the end still runs. Needs a
# writable cgroup hierarchy (root; v1's pids, or v2).
for d in /sys/fs/cgroup/pids /sys/fs/cgroup; do
	if [ -f "$d/cgroup.procs" ] && mkdir "$d/sbx-test-$$" 2>/dev/null; then
		procs_cg=$d/sbx-test-$$
		break
	fi
done
# in_cg COMMAND...: runs it in that cgroup.
in_cg() {
	[ -z "$procs_cg" ] || echo "$BASHPID" >"$procs_cg/cgroup.procs"
	"$@"
}

# The processes of the run's cgroup that still run (zombies waiting for
# their reaper are gone already), but the engine a test restarted with
# scripts/docker-up.sh (engine.test.mjs): its dockerd (/var/run/docker.pid),
# what descends from it, and the shims of its containerd, which stay.
running_left() {
	local pid engine s args p keep
	engine=$(cat /var/run/docker.pid 2>/dev/null || echo 0)
	while read -r pid; do
		s=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
		s=${s##*) }
		[ "${s%% *}" != Z ] || continue
		args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
		case $args in *"-address /var/run/docker/containerd/containerd.sock"*) continue ;; esac
		keep=0
		p=$pid
		while [ "$p" -gt 1 ]; do
			if [ "$p" = "$engine" ]; then
				keep=1
				break
			fi
			# pid (comm) state ppid ...: comm may hold spaces and parentheses.
			s=$(cat "/proc/$p/stat" 2>/dev/null) || break
			s=${s##*) }
			s=${s#* }
			p=${s%% *}
		done
		[ "$keep" -eq 1 ] || echo "$pid"
	done <"$procs_cg/cgroup.procs"
}
# What stays (the engine, if a test restarted it) goes back where it was.
cg_release() {
	local pid
	while read -r pid; do
		echo "$pid" >"${procs_cg%/*}/cgroup.procs" 2>/dev/null || true
	done <"$procs_cg/cgroup.procs"
	rmdir "$procs_cg" 2>/dev/null || true
	procs_cg=
}

# e2e_run OPTIONS...: tests/e2e/run.mjs with them; its last line is
# "e2e: P passed, F failed, S skipped".
e2e_run() {
	local out line p f
	out=$(mktemp -p "$res")
	if ! (cd tests/e2e && in_cg node run.mjs "$@") 2>&1 | tee "$out"; then
		layer_failed end-to-end "run.mjs $*"
	fi
	line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n1 || true)
	if [ -n "$line" ]; then
		read -r _ p _ f _ <<<"${line//,/}"
		count end-to-end "$p" "$f"
	fi
}
npm_ready=0
if [ ! -f tests/e2e/package-lock.json ]; then
	sbx_log "error: tests/e2e/package-lock.json is missing (npm ci needs it): run npm install in tests/e2e and commit it"
	layer_failed end-to-end "npm ci"
elif ! wait "$npm_pid"; then
	cat "$npm_log" >&2
	sbx_log "error: npm ci in tests/e2e failed"
	layer_failed end-to-end "npm ci"
else
	cat "$npm_log" >&2
	npm_ready=1
fi

if [ "$npm_ready" -eq 1 ]; then
	# The files that must run alone, one after the other, with no other
	# test on the engine, while the builds, the fuzzers and the static
	# analysis take the CPU these files leave (most of it: they wait on
	# daemons and containers).
	step end-to-end "e2e alone" e2e_run --only=alone
fi

# The soak (side by side) needs build-asan, and the unit tests under ASan
# must not share the machine with those files.
while [ ! -f "$res/asan.done" ]; do sleep 1; done

if [ "$npm_ready" -eq 1 ]; then
	# The integration tests (real Docker, containers of their own) beside
	# the files that run side by side, several at a time, and the
	# adversarial suite a second time with the code blocklist off:
	# containment never depends on it (docs/security.md, "The code
	# blocklist").
	bg_step integration 0 in_cg step integration "integration ctest" \
		ctest_layer integration build integration ctest
	step end-to-end "e2e side by side" e2e_run --only=side --blocklist-off
	collect integration
else
	step integration "integration ctest" ctest_layer integration build integration ctest
fi
collect unit

# A server's containers go within 5 s of its end (docs/architecture.md):
# the check polls for up to 15 s before it fails.
engine_check() {
	local left
	for _ in $(seq 30); do
		left=$(comm -13 <(printf '%s\n' "$engine_before") <(engine_objects))
		[ -n "$left" ] || break
		sleep 0.5
	done
	if [ -n "$left" ]; then
		sbx_log "the end-to-end tests left these behind (a test that did not clean up):"
		sed 's/^/  /' <<<"$left" >&2
		layer_failed end-to-end "left on the engine"
	else
		count end-to-end 1 0
	fi
}
step end-to-end "left on the engine" engine_check

process_check() {
	local left=
	if [ -z "$procs_cg" ]; then
		sbx_log "no writable cgroup hierarchy (not root?): what the tests left running is not checked"
		return
	fi
	for _ in $(seq 30); do
		left=$(running_left)
		[ -n "$left" ] || break
		sleep 0.5
	done
	if [ -n "$left" ]; then
		sbx_log "the end-to-end tests left these running (a test that did not stop what it started); killed now:"
		# shellcheck disable=SC2086 # one pid a word
		ps -o pid,user,args -p "$(echo $left | tr ' ' ,)" >&2 || true
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null || true
		layer_failed end-to-end "left running"
	else
		count end-to-end 1 0
	fi
}
step end-to-end "left running" process_check
# What stays (the engine, if a test restarted it) goes back where it was.
[ -z "$procs_cg" ] || cg_release

collect builds
collect static
summary
