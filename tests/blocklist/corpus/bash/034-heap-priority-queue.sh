#!/usr/bin/env bash
# A binary min-heap used as a priority queue for a tiny job scheduler.
set -euo pipefail

declare -a heap_pri=() heap_val=()

heap_swap() {
    local t=${heap_pri[$1]}; heap_pri[$1]=${heap_pri[$2]}; heap_pri[$2]=$t
    t=${heap_val[$1]}; heap_val[$1]=${heap_val[$2]}; heap_val[$2]=$t
}

heap_push() {   # heap_push PRIORITY VALUE
    local i=${#heap_pri[@]} parent
    heap_pri[i]=$1 heap_val[i]=$2
    while (( i > 0 )); do
        parent=$(( (i - 1) / 2 ))
        (( heap_pri[parent] <= heap_pri[i] )) && break
        heap_swap "$i" "$parent"
        i=$parent
    done
}

heap_pop() {    # sets POP_PRI and POP_VAL
    local n=${#heap_pri[@]} i=0 l r m
    (( n > 0 )) || return 1
    POP_PRI=${heap_pri[0]} POP_VAL=${heap_val[0]}
    heap_pri[0]=${heap_pri[n-1]} heap_val[0]=${heap_val[n-1]}
    unset "heap_pri[n-1]" "heap_val[n-1]"
    (( n-- ))
    while :; do
        l=$(( 2 * i + 1 )) r=$(( 2 * i + 2 )) m=$i
        (( l < n && heap_pri[l] < heap_pri[m] )) && m=$l
        (( r < n && heap_pri[r] < heap_pri[m] )) && m=$r
        (( m == i )) && break
        heap_swap "$i" "$m"
        i=$m
    done
}

# Jobs: priority (lower runs first) and a description.
while IFS=, read -r pri name; do
    heap_push "$pri" "$name"
done <<'JOBS'
5,rotate logs
1,renew TLS certificate
3,vacuum database
9,send weekly newsletter
2,restart stuck worker
7,rebuild search index
3,compact object store
JOBS

echo "queued ${#heap_pri[@]} jobs; next up: '${heap_val[0]}' (priority ${heap_pri[0]})"
order=0 last=-1 sorted_ok=1
while heap_pop; do
    (( ++order ))
    (( POP_PRI < last )) && sorted_ok=0
    last=$POP_PRI
    printf '%d. [p%d] %s\n' "$order" "$POP_PRI" "$POP_VAL"
done
(( sorted_ok )) && echo "priorities came out in non-decreasing order"

# Heap sort of random numbers as a second check.
RANDOM=7
for i in {1..25}; do heap_push $(( RANDOM % 100 )) x; done
out=()
while heap_pop; do out+=("$POP_PRI"); done
echo "heap sort: ${out[*]}"
[[ "${out[*]}" == "$(printf '%s\n' "${out[@]}" | sort -n | paste -sd' ')" ]] && echo "matches sort -n"
