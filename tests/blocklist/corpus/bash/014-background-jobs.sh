#!/usr/bin/env bash
# Run several workers in the background, collect their results, and stop a helper job.
set -euo pipefail

workdir=$(mktemp -d /tmp/jobs.XXXXXX)
cleanup() {
    local rc=$?
    [[ -n ${ticker_pid:-} ]] && kill "$ticker_pid" 2>/dev/null || true
    rm -rf -- "$workdir"
    echo "cleanup done (exit status $rc)"
}
trap cleanup EXIT

# A worker computes the sum of squares in a range and writes it to a file.
worker() {
    local id=$1 from=$2 to=$3 sum=0 i
    for (( i = from; i <= to; i++ )); do (( sum += i * i )); done
    sleep "0.$(( RANDOM % 3 ))"             # pretend to be busy
    echo "$sum" > "$workdir/result.$id"
}

# A "ticker" that would run forever; we kill it ourselves at the end.
( while :; do sleep 0.2; done ) &
ticker_pid=$!
echo "started ticker as PID $ticker_pid"

declare -A pids=()
chunk=2500
for id in 1 2 3 4; do
    from=$(( (id - 1) * chunk + 1 ))
    to=$(( id * chunk ))
    worker "$id" "$from" "$to" &
    pids[$id]=$!
done
echo "launched ${#pids[@]} workers: ${pids[*]}"

failed=0
for id in "${!pids[@]}"; do
    if wait "${pids[$id]}"; then
        :
    else
        echo "worker $id failed"; (( ++failed ))
    fi
done
echo "all workers finished, failures=$failed"

total=0
for f in "$workdir"/result.*; do
    (( total += $(<"$f") ))
done
n=$(( 4 * chunk ))
expected=$(( n * (n + 1) * (2 * n + 1) / 6 ))
echo "sum of squares 1..$n = $total (expected $expected)"
[[ $total -eq $expected ]] && echo "results match"

kill "$ticker_pid"
wait "$ticker_pid" 2>/dev/null || echo "ticker stopped (status $?)"
unset ticker_pid
jobs -l | wc -l | xargs echo "jobs still listed:"
