#!/usr/bin/env bash
# Producer/consumer over a named pipe, with a background consumer and clean shutdown.
set -euo pipefail

tmp=$(mktemp -d /tmp/pipeline.XXXXXX)
fifo=$tmp/queue
mkfifo "$fifo"
trap 'rm -rf "$tmp"' EXIT

consumer() {
    local processed=0 total=0 kind payload
    while IFS=: read -r kind payload; do
        case $kind in
            job)
                # "Process" the job: sum the digits of the payload.
                local s=0 i
                for (( i = 0; i < ${#payload}; i++ )); do (( s += ${payload:i:1} )); done
                (( total += s, ++processed ))
                printf '  consumer: job %-8s digit-sum %2d\n' "$payload" "$s"
                ;;
            stop)
                printf '  consumer: stop received after %d jobs\n' "$processed"
                break
                ;;
            *)  printf '  consumer: ignoring malformed message %q\n' "$kind:$payload" ;;
        esac
    done < "$fifo"
    echo "$processed $total" > "$tmp/result"
}

producer() {
    local i
    exec 3> "$fifo"          # opening for write blocks until the reader opens it
    for i in 1024 77 31337 9 4096 123456; do
        echo "job:$i" >&3
    done
    echo "garbage line without a colon" >&3
    echo "stop:" >&3
    exec 3>&-
}

echo "starting consumer in the background"
consumer &
consumer_pid=$!

echo "producing work"
producer
wait "$consumer_pid"
echo "consumer (pid $consumer_pid) exited with status $?"

read -r jobs total < "$tmp/result"
echo "summary: $jobs jobs, total digit sum $total"

# A second pattern: coproc gives a bidirectional pipe to a helper process.
coproc CALC { bc -l; }
for expr in "2^20" "scale=4; 22/7" "sqrt(144)"; do
    echo "$expr" >&"${CALC[1]}"
    read -r answer <&"${CALC[0]}"
    printf '  bc: %-14s = %s\n' "$expr" "$answer"
done
calc_pid=$CALC_PID
exec {CALC[1]}>&-         # close bc's stdin so it exits
wait "$calc_pid" || true
echo "coprocess finished"
