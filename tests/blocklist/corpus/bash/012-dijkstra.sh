#!/usr/bin/env bash
# Dijkstra's shortest paths on a small weighted digraph (linear-scan priority selection).
set -euo pipefail

declare -A w=()      # w["u v"]=weight
declare -A nodes=()

while IFS=' ' read -r u v cost; do
    w["$u $v"]=$cost
    nodes[$u]=1; nodes[$v]=1
done <<'EDGES'
A B 4
A C 2
C B 1
B D 5
C D 8
C E 10
D E 2
E F 3
D F 6
EDGES

dijkstra() {
    local src=$1 u v best k
    declare -gA dist=() prev=() done_=()
    for v in "${!nodes[@]}"; do dist[$v]=999999; done
    dist[$src]=0
    while :; do
        u="" best=999999
        for v in "${!nodes[@]}"; do
            [[ -n ${done_[$v]:-} ]] && continue
            (( dist[$v] < best )) && { best=${dist[$v]}; u=$v; }
        done
        [[ -z $u ]] && break
        done_[$u]=1
        for k in "${!w[@]}"; do
            [[ ${k% *} == "$u" ]] || continue
            v=${k#* }
            if (( dist[$u] + w[$k] < dist[$v] )); then
                dist[$v]=$(( dist[$u] + w[$k] ))
                prev[$v]=$u
            fi
        done
    done
}

path_to() {
    local v=$1 out=$1
    while [[ -n ${prev[$v]:-} ]]; do v=${prev[$v]}; out="$v -> $out"; done
    echo "$out"
}

dijkstra A
printf '%-4s %-6s %s\n' NODE DIST PATH
for v in $(printf '%s\n' "${!nodes[@]}" | sort); do
    if (( dist[$v] == 999999 )); then
        printf '%-4s %-6s %s\n' "$v" inf '-'
    else
        printf '%-4s %-6d %s\n' "$v" "${dist[$v]}" "$(path_to "$v")"
    fi
done

# Sanity check: total edges and the heaviest one.
heaviest=$(for k in "${!w[@]}"; do echo "${w[$k]} $k"; done | sort -rn | head -1)
echo "edges=${#w[@]} heaviest: ${heaviest#* } (weight ${heaviest%% *})"
