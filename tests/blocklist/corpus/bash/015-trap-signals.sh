#!/usr/bin/env bash
# Demonstrates trap handlers: a custom signal, ERR reporting, RETURN and EXIT.
set -uo pipefail

reloads=0
on_usr1() {
    (( ++reloads ))
    echo "  [USR1] reloading configuration (reload #$reloads)"
}
on_err() {
    echo "  [ERR] command failed with status $1 at line $2: $3"
}
on_exit() {
    echo "[EXIT] reloads=$reloads, bye"
}

trap on_usr1 USR1
trap 'on_err $? $LINENO "$BASH_COMMAND"' ERR
trap on_exit EXIT

echo "my PID is $$ (parent $PPID)"

echo "sending USR1 to myself twice"
kill -USR1 $$
kill -s USR1 "$$"

echo "a failing command triggers ERR:"
false
grep -q 'needle' <<<"haystack"

echo "RETURN trap inside a function:"
tracked() {
    trap 'echo "  [RETURN] leaving ${FUNCNAME[0]}"' RETURN
    echo "  inside tracked(), args: $# -> $*"
}
tracked one two three

echo "a child signals the parent from the background:"
( sleep 0.1; kill -USR1 $$ ) &
child=$!
# wait returns >128 when a trapped signal interrupts it, so wait again.
wait "$child" || { echo "  wait interrupted (status $?), waiting again"; wait "$child" || true; }

echo "ignoring INT for a critical section"
trap '' INT
kill -INT $$           # ignored
trap - INT
echo "critical section done"

echo "current traps:"
trap -p | sed 's/^/  /'
trap - ERR
exit 0
