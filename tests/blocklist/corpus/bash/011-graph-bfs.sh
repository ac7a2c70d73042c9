#!/usr/bin/env bash
# Breadth-first search over an undirected graph read from a heredoc edge list.
set -euo pipefail

declare -A adj=()

add_edge() {
    adj[$1]+="$2 "
    adj[$2]+="$1 "
}

while read -r a b; do
    [[ -z $a || $a == '#'* ]] && continue   # blank lines and comments
    add_edge "$a" "$b"
done <<EOF
# city links (undirected)
amsterdam berlin
amsterdam brussels
brussels paris
berlin prague
prague vienna
vienna budapest
paris lyon
lyon geneva
geneva zurich
zurich vienna
oslo stockholm
EOF

bfs() {
    local start=$1 goal=$2 node next
    local -A parent=(["$start"]="") seen=(["$start"]=1)
    local -a queue=("$start")
    while (( ${#queue[@]} )); do
        node=${queue[0]}
        queue=("${queue[@]:1}")
        if [[ $node == "$goal" ]]; then
            local path=() cur=$goal
            while [[ -n $cur ]]; do path=("$cur" "${path[@]}"); cur=${parent[$cur]}; done
            echo "${path[*]}"
            return 0
        fi
        for next in ${adj[$node]}; do
            [[ -n ${seen[$next]:-} ]] && continue
            seen[$next]=1
            parent[$next]=$node
            queue+=("$next")
        done
    done
    return 1
}

echo "Graph has ${#adj[@]} nodes"
for pair in "amsterdam vienna" "paris budapest" "brussels zurich" "amsterdam oslo"; do
    set -- $pair
    if route=$(bfs "$1" "$2"); then
        hops=$(( $(wc -w <<<"$route") - 1 ))
        printf '%-10s -> %-9s %d hops: %s\n' "$1" "$2" "$hops" "${route// / > }"
    else
        printf '%-10s -> %-9s unreachable\n' "$1" "$2"
    fi
done

# Connected components via repeated BFS from unvisited nodes.
declare -A comp=()
n=0
for start in $(printf '%s\n' "${!adj[@]}" | sort); do
    [[ -n ${comp[$start]:-} ]] && continue
    (( ++n ))
    todo=("$start"); comp[$start]=$n
    while (( ${#todo[@]} )); do
        v=${todo[-1]}; unset 'todo[-1]'
        for w in ${adj[$v]}; do
            [[ -z ${comp[$w]:-} ]] && { comp[$w]=$n; todo+=("$w"); }
        done
    done
done
echo "Connected components: $n"
