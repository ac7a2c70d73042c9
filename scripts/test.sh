#!/usr/bin/env bash
# Command two: everything CI runs.
#
#   scripts/test.sh
#
# Prepares the machine as scripts/setup.sh does (without its demo), then runs
# the unit tests (ctest) and the end-to-end tests (node --test in tests/e2e,
# against the real server and a real Docker engine). Exits non-zero if
# anything failed; the last line sums up.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$SBX_ROOT"
# The e2e tests read CI (e.g. to be stricter about timing); pass it on.
if [ -n "${CI+set}" ]; then export CI; fi
T0=$(sbx_now)
ok=()
failed=()
skipped=()

summary() {
	local line="test.sh:"
	[ "${#ok[@]}" -eq 0 ] || line+=" ok: ${ok[*]};"
	[ "${#skipped[@]}" -eq 0 ] || line+=" skipped: ${skipped[*]};"
	[ "${#failed[@]}" -eq 0 ] || line+=" FAILED: ${failed[*]};"
	sbx_log ""
	sbx_log "$line in $(sbx_since "$T0")"
}

if ! scripts/setup.sh --no-demo; then
	failed+=(setup)
	summary
	exit 1
fi
ok+=(setup)

# Counts for the closing "N passed, N failed" line, from each runner's own
# summary.
npass=0
nfail=0
count_ctest() { # ctest's "... tests failed out of N"
	local f t
	f=$(sed -n 's/.* \([0-9]*\) tests failed out of \([0-9]*\).*/\1/p' "$1" | tail -n1)
	t=$(sed -n 's/.* tests failed out of \([0-9]*\).*/\1/p' "$1" | tail -n1)
	npass=$((npass + ${t:-0} - ${f:-0}))
	nfail=$((nfail + ${f:-0}))
}
count_node() { # node --test's "# pass N" / "# fail N"
	local p f
	p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$1" | tail -n1)
	f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$1" | tail -n1)
	npass=$((npass + ${p:-0}))
	nfail=$((nfail + ${f:-0}))
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

sbx_step "unit and integration tests (ctest)"
if ctest --test-dir build --output-on-failure --no-tests=error 2>&1 | tee "$out"; then
	ok+=(ctest)
else
	failed+=(ctest)
fi
count_ctest "$out"

# The unit tests again under AddressSanitizer and UBSan (the static agent
# and the Docker-bound tests are not instrumented there).
sbx_step "unit tests under ASan/UBSan"
if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSBX_SANITIZE=ON >/dev/null &&
	cmake --build build-asan -j"$(nproc)" >/dev/null &&
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
		ctest --test-dir build-asan -L unit --output-on-failure --no-tests=error 2>&1 | tee "$out"; then
	ok+=(asan)
else
	failed+=(asan)
fi
count_ctest "$out"

sbx_step "end-to-end tests (tests/e2e)"
if [ ! -f tests/e2e/package.json ]; then
	sbx_warn "tests/e2e/package.json is missing: skipping the end-to-end tests"
	skipped+=(e2e)
elif [ ! -f tests/e2e/package-lock.json ]; then
	sbx_log "error: tests/e2e/package-lock.json is missing (npm ci needs it): run npm install in tests/e2e and commit it"
	failed+=(e2e)
elif (cd tests/e2e && npm ci --no-audit --no-fund && npm test) 2>&1 | tee "$out"; then
	ok+=(e2e)
	count_node "$out"
else
	failed+=(e2e)
	count_node "$out"
fi

summary
echo "$npass passed, $nfail failed"
[ "${#failed[@]}" -eq 0 ]
