#!/usr/bin/env bash
# Parse application log lines with [[ =~ ]] and summarise levels, endpoints and latency.
set -euo pipefail

log=$(mktemp /tmp/app-log.XXXXXX)
trap 'rm -f "$log"' EXIT

cat > "$log" <<'EOF'
2024-05-01T10:00:01Z INFO  [web] GET /api/users 200 12ms
2024-05-01T10:00:02Z INFO  [web] GET /api/users/42 200 8ms
2024-05-01T10:00:02Z WARN  [web] GET /api/orders 429 3ms rate limited
2024-05-01T10:00:03Z ERROR [db] query timeout after 5000ms: SELECT * FROM orders WHERE id = $1
2024-05-01T10:00:04Z INFO  [web] POST /api/orders 201 45ms
2024-05-01T10:00:05Z DEBUG [auth] token refreshed for user #42
2024-05-01T10:00:06Z ERROR [web] GET /api/reports 500 230ms
# this line is a comment inside the log and should be skipped
2024-05-01T10:00:07Z INFO  [web] GET /api/users 200 10ms
EOF

re_line='^([0-9T:-]+Z)[[:space:]]+([A-Z]+)[[:space:]]+\[([a-z]+)\][[:space:]]+(.*)$'
re_http='^(GET|POST|PUT|DELETE) ([^ ]+) ([0-9]{3}) ([0-9]+)ms'

declare -A levels=() endpoints=()
total_ms=0 requests=0 skipped=0

while IFS= read -r line; do
    if [[ $line =~ $re_line ]]; then
        level=${BASH_REMATCH[2]}
        rest=${BASH_REMATCH[4]}
        levels[$level]=$(( ${levels[$level]:-0} + 1 ))
        if [[ $rest =~ $re_http ]]; then
            path=${BASH_REMATCH[2]}
            path=${path%/[0-9]*}            # collapse /api/users/42 -> /api/users
            endpoints["${BASH_REMATCH[1]} $path"]=1
            (( total_ms += BASH_REMATCH[4], requests += 1 ))
        fi
    else
        (( ++skipped ))
    fi
done < "$log"

echo "Level counts:"
for lvl in DEBUG INFO WARN ERROR; do
    printf '  %-5s %d\n' "$lvl" "${levels[$lvl]:-0}"
done

echo "Distinct endpoints (${#endpoints[@]}):"
printf '  %s\n' "${!endpoints[@]}" | sort

if (( requests > 0 )); then
    echo "Average latency: $(( total_ms / requests ))ms over $requests requests"
fi
echo "Skipped lines: $skipped"

echo "Errors:"
grep -E ' ERROR ' "$log" | sed -E 's/^[^ ]+ ERROR +/  - /'
