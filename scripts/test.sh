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

sbx_step "unit tests (ctest)"
if ctest --test-dir build --output-on-failure; then
	ok+=(ctest)
else
	failed+=(ctest)
fi

sbx_step "end-to-end tests (tests/e2e)"
if [ ! -f tests/e2e/package.json ]; then
	sbx_warn "tests/e2e/package.json is missing: skipping the end-to-end tests"
	skipped+=(e2e)
elif [ ! -f tests/e2e/package-lock.json ]; then
	sbx_log "error: tests/e2e/package-lock.json is missing (npm ci needs it): run npm install in tests/e2e and commit it"
	failed+=(e2e)
elif (cd tests/e2e && npm ci --no-audit --no-fund && node --test); then
	ok+=(e2e)
else
	failed+=(e2e)
fi

summary
[ "${#failed[@]}" -eq 0 ]
