#!/usr/bin/env bash
# Retry a flaky operation with exponential backoff, timeouts and clear error reporting.
set -euo pipefail

state=/tmp/flaky-state.$$
trap 'rm -f "$state"' EXIT
echo 0 > "$state"

# Simulated unreliable operation: fails the first N calls, then succeeds.
flaky() {
    local fail_until=$1 n
    n=$(( $(<"$state") + 1 ))
    echo "$n" > "$state"
    if (( n <= fail_until )); then
        echo "attempt $n: connection reset by peer" >&2
        return 7
    fi
    echo "attempt $n: ok"
}

retry() {   # retry MAX_TRIES BASE_DELAY_MS command...
    local max=$1 delay=$2; shift 2
    local try=1 rc
    while :; do
        if "$@"; then return 0; else rc=$?; fi
        if (( try >= max )); then
            echo "giving up after $try tries (last status $rc)" >&2
            return "$rc"
        fi
        printf '  retry %d/%d in %d ms\n' "$try" "$(( max - 1 ))" "$delay" >&2
        sleep "$(printf '0.%03d' "$delay")"
        (( try++, delay = delay * 2 > 800 ? 800 : delay * 2 ))
    done
}

echo "Case 1: succeeds on the third attempt"
echo 0 > "$state"
retry 5 20 flaky 2

echo
echo "Case 2: never succeeds within the limit"
echo 0 > "$state"
if retry 3 10 flaky 10; then
    echo "unexpected success"
else
    echo "operation failed with status $?, continuing with cached data"
fi

echo
echo "Case 3: a slow command limited by timeout(1)"
if timeout 0.3 sleep 2; then
    echo "finished"
else
    rc=$?
    (( rc == 124 )) && echo "timed out (status 124), as expected"
fi

echo
echo "Case 4: errors inside a pipeline are caught by pipefail"
if ! printf 'a\nb\n' | grep -q zzz | cat; then
    echo "pipeline failed because grep found nothing"
fi

echo
echo "Case 5: subshell with set -e stops at the first error"
# Note: set -e is ignored inside a subshell used with || or &&, so run it plainly.
set +e
( set -e; echo "  step 1"; false; echo "  step 2 (never printed)" )
rc=$?
set -e
echo "  subshell exited with $rc"
