#!/usr/bin/env bash
# Command two: everything CI runs.
#
#   scripts/test.sh
#
# Prepares the machine as scripts/setup.sh does (without its demo), then
# runs the suite layer by layer:
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
#   end-to-end   node --test in tests/e2e (the real server, the official MCP
#                SDK, real Docker), then the adversarial suite again with
#                the code blocklist off, then a check that they left no
#                container, volume or network on the engine (one check)
#
# and ends with the counts per layer on one line, then, alone on the last
# line, "N passed, N failed" (CI reads it). Exits non-zero if anything
# failed or a layer ran nothing. Under CI=true the Docker-bound tests fail
# instead of skipping when Docker or an image is missing.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$SBX_ROOT"
if [ -n "${CI+set}" ]; then export CI; fi
T0=$(sbx_now)
LAYERS=(static unit integration end-to-end)
declare -A npass nfail
for l in "${LAYERS[@]}"; do
	npass[$l]=0
	nfail[$l]=0
done
failed=()
unlayered_fail=0 # a failure before any layer ran (setup)

# A layer whose runner failed counts at least one failure, whatever the
# runner's own summary said (or did not say).
layer_failed() {
	failed+=("$1${2:+ ($2)}")
	[ "${nfail[$1]}" -gt 0 ] || nfail[$1]=1
}

summary() {
	local l line=""
	sbx_log ""
	sbx_log "test.sh: ${#failed[@]} step(s) failed${failed[*]:+: ${failed[*]}} in $(sbx_since "$T0")"
	for l in "${LAYERS[@]}"; do
		line+="${line:+; }$l ${npass[$l]} passed, ${nfail[$l]} failed"
	done
	echo "$line"
	local p=0 f=0
	for l in "${LAYERS[@]}"; do
		p=$((p + npass[$l]))
		f=$((f + nfail[$l]))
	done
	echo "$p passed, $((f + unlayered_fail)) failed"
}

if ! scripts/setup.sh --no-demo; then
	failed+=(setup)
	unlayered_fail=1 # nothing ran: the last line must not say 0 failed
	summary
	exit 1
fi

# The suite's own tools; any clang-format, cppcheck and clang-tidy on the
# PATH will do. clang builds the fuzz harnesses (tests/fuzz) with its
# libFuzzer; the engines the end-to-end tests start (tests/e2e/lib/
# engines.mjs) get bridges of their own with ip, and one is a Podman service
# (a rootless one too: newuidmap).
tools=()
for t in clang-format:clang-format clang:clang cppcheck:cppcheck \
	run-clang-tidy:clang-tidy ip:iproute2 podman:podman newuidmap:uidmap; do
	command -v "${t%%:*}" >/dev/null 2>&1 || tools+=("${t#*:}")
done
# The end-to-end tests run on Node (setup.sh --languages may not have
# needed it).
node_pkgs=$(sbx_node_pkgs) || { failed+=(node); unlayered_fail=1; summary; exit 1; }
read -ra node <<<"$node_pkgs"
tools+=(${node[@]+"${node[@]}"})
if [ "${#tools[@]}" -gt 0 ] && ! sbx_apt_install "${tools[@]}"; then
	failed+=("installing ${tools[*]}")
	unlayered_fail=1
	summary
	exit 1
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# ctest's "N% tests passed, F tests failed out of T", less the tests it
# lists as not run (skipped: exit 77, never under CI=true).
count_ctest() { # count_ctest LAYER LOG
	local t f s
	f=$(sed -n 's/.* \([0-9]*\) tests failed out of \([0-9]*\).*/\1/p' "$2" | tail -n1)
	t=$(sed -n 's/.* tests failed out of \([0-9]*\).*/\1/p' "$2" | tail -n1)
	s=$(grep -cE '^[[:space:]]*[0-9]+ - .* \((Skipped|Not Run|Disabled)\)$' "$2" || true)
	npass[$1]=$((npass[$1] + ${t:-0} - ${f:-0} - s))
	nfail[$1]=$((nfail[$1] + ${f:-0}))
}

# ---- static ----
sbx_step "static: formatting (clang-format --dry-run --Werror)"
if ! command -v clang-format >/dev/null 2>&1; then
	sbx_log "error: clang-format is missing (scripts/setup.sh installs it)"
	layer_failed static clang-format
else
	mapfile -t sources < <(git ls-files -- '*.c' '*.h')
	bad=0
	for f in "${sources[@]}"; do
		if clang-format --dry-run --Werror "$f" >"$out" 2>&1; then
			npass[static]=$((npass[static] + 1))
		else
			cat "$out" >&2
			bad=$((bad + 1))
		fi
	done
	nfail[static]=$((nfail[static] + bad))
	if [ "${#sources[@]}" -eq 0 ]; then
		layer_failed static "no C file found"
	elif [ "$bad" -ne 0 ]; then
		sbx_log "$bad file(s) differ from .clang-format: run clang-format -i on them"
		failed+=("static (format)")
	fi
fi

# Static analysis: cppcheck on everything the build compiles (tests too),
# clang-tidy on the code that ships (host, agent, common, plugins, sdk),
# from the build's compile_commands.json; both must report nothing. Their suppressions, each with its reason, are in
# .clang-tidy and scripts/cppcheck-cjson.cfg.
sbx_step "static: cppcheck"
if ! command -v cppcheck >/dev/null 2>&1; then
	sbx_log "error: cppcheck is missing (scripts/setup.sh installs it)"
	layer_failed static cppcheck
elif cppcheck --project=build/compile_commands.json \
	--enable=warning,portability,performance --inline-suppr \
	--library=scripts/cppcheck-cjson.cfg --error-exitcode=1 --quiet \
	-j"$(nproc)" >"$out" 2>&1 && [ ! -s "$out" ]; then
	npass[static]=$((npass[static] + 1))
else
	cat "$out" >&2
	layer_failed static cppcheck
fi
sbx_step "static: clang-tidy (.clang-tidy)"
if ! command -v run-clang-tidy >/dev/null 2>&1; then
	sbx_log "error: clang-tidy is missing (scripts/setup.sh installs it)"
	layer_failed static clang-tidy
else
	run-clang-tidy -p build -j"$(nproc)" -quiet \
		"$SBX_ROOT/(host|agent|common|plugins|sdk)/.*\.c\$" >"$out" 2>&1 || true
	if grep -qE '(warning|error):' "$out"; then
		grep -E '(warning|error):' "$out" >&2
		layer_failed static clang-tidy
	elif ! grep -q 'clang-tidy' "$out"; then
		cat "$out" >&2
		layer_failed static "clang-tidy ran on nothing"
	else
		npass[static]=$((npass[static] + 1))
	fi
fi

# ctest_layer LAYER DIR LABEL WHAT [VAR=VALUE...]: the tests labelled LABEL
# in the build tree DIR (with those variables set), counted in LAYER; a
# failure is reported as WHAT.
ctest_layer() {
	local layer=$1 dir=$2 label=$3 what=$4
	shift 4
	if env "$@" ctest --test-dir "$dir" -L "^$label\$" --output-on-failure --no-tests=error 2>&1 | tee "$out"; then
		count_ctest "$layer" "$out"
	else
		count_ctest "$layer" "$out"
		layer_failed "$layer" "$what"
	fi
}

# ---- unit ----
sbx_step "unit tests (ctest -L unit)"
ctest_layer unit build unit ctest

# The unit tests again under AddressSanitizer and UBSan (the static agent
# and the Docker-bound tests are not instrumented there).
sbx_step "unit tests under ASan/UBSan (ctest -L unit in build-asan)"
if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON >/dev/null &&
	cmake --build build-asan -j"$(nproc)" >/dev/null; then
	ctest_layer unit build-asan unit asan ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1
else
	layer_failed unit "asan build"
fi

# The end-to-end tests' packages install while the fuzzers run: npm ci
# mostly waits on the registry, and each fuzzer runs for a fixed time.
npm_log=$(mktemp)
npm_pid=
if [ -f tests/e2e/package-lock.json ]; then
	(cd tests/e2e && npm ci --no-audit --no-fund) >"$npm_log" 2>&1 &
	npm_pid=$!
fi

# The libFuzzer harnesses: the agent protocol's reader and decoders, a
# client's line through the MCP server, and the plugins' lexers (seeded
# with the blocklist corpus), each for a bounded time. A crash, a leak or
# undefined behaviour fails with the input that caused it.
sbx_step "fuzz: tests/fuzz (libFuzzer, ASan/UBSan, ${SBX_FUZZ_SECONDS:-30} s each)"
if CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON \
	-DSBX_FUZZ=ON -DSBX_WERROR=OFF >/dev/null &&
	cmake --build build-fuzz -j"$(nproc)" --target fuzz_agent_codec fuzz_mcp_line fuzz_lex >/dev/null; then
	for h in agent_codec mcp_line lex; do
		corpus=$(mktemp -d)
		seeds=()
		if [ "$h" = lex ]; then
			seeds=("$SBX_ROOT"/tests/blocklist/corpus/* "$SBX_ROOT"/tests/blocklist/caught/*)
		elif [ -d "tests/fuzz/seeds/$h" ]; then
			seeds=("$SBX_ROOT/tests/fuzz/seeds/$h")
		fi
		if (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
			"bin/fuzz_$h" -max_total_time="${SBX_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
			-max_len=65536 -print_final_stats=1 "$corpus" "${seeds[@]}") >"$out" 2>&1; then
			npass[unit]=$((npass[unit] + 1))
			sbx_log "fuzz_$h: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$out" | tail -n1)"
		else
			tail -n 40 "$out" >&2
			layer_failed unit "fuzz_$h"
		fi
		rm -rf "$corpus"
	done
else
	layer_failed unit "fuzz build"
fi

# ---- integration ----
sbx_step "integration tests (ctest -L integration)"
ctest_layer integration build integration ctest

# ---- end-to-end ----
# What is on the engine before the end-to-end runs: whatever they add and
# leave (a container, a volume or a network, by name) fails the layer at
# the end. The one exception is the server's own package cache volume
# (docs/packages.md), which a server keeps on purpose.
engine_objects() {
	{
		docker ps -a --format 'container {{.Names}}'
		docker volume ls --format 'volume {{.Name}}'
		docker network ls --format 'network {{.Name}}'
	} 2>/dev/null | grep -vx 'volume mcp-sandbox-packages' | sort
}
engine_before=$(engine_objects)

sbx_step "end-to-end tests (tests/e2e)"
e2e_ok=0
if [ ! -f tests/e2e/package-lock.json ]; then
	sbx_log "error: tests/e2e/package-lock.json is missing (npm ci needs it): run npm install in tests/e2e and commit it"
elif ! wait "$npm_pid"; then
	cat "$npm_log" >&2
	sbx_log "error: npm ci in tests/e2e failed"
elif (cd tests/e2e && cat "$npm_log" && npm test) 2>&1 | tee "$out"; then
	e2e_ok=1
fi
rm -f "$npm_log"
# run.mjs's last line: "e2e: P passed, F failed, S skipped".
line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n1 || true)
if [ -n "$line" ]; then
	read -r _ p _ f _ <<<"${line//,/}"
	npass[end-to-end]=$p
	nfail[end-to-end]=$f
fi
[ "$e2e_ok" -eq 1 ] || layer_failed end-to-end

# The adversarial suite again with the code blocklist off: containment
# never depends on it (docs/security.md, "The code blocklist").
sbx_step "end-to-end: the adversarial suite with the blocklist off"
adv_ok=0
if (cd tests/e2e && SBX_E2E_BLOCKLIST=off node run.mjs adversarial.test.mjs \
	escape.test.mjs hardening.test.mjs limits.test.mjs seccomp.test.mjs) 2>&1 | tee "$out"; then
	adv_ok=1
fi
line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n1 || true)
if [ -n "$line" ]; then
	read -r _ p _ f _ <<<"${line//,/}"
	npass[end-to-end]=$((${npass[end-to-end]:-0} + p))
	nfail[end-to-end]=$((${nfail[end-to-end]:-0} + f))
fi
[ "$adv_ok" -eq 1 ] || layer_failed end-to-end "adversarial, blocklist off"

sbx_step "end-to-end: nothing left on the engine"
# A server's containers go within 5 s of its end (docs/architecture.md):
# the check polls for up to 15 s before it fails.
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
	npass[end-to-end]=$((${npass[end-to-end]:-0} + 1))
fi

summary
[ "${#failed[@]}" -eq 0 ]
