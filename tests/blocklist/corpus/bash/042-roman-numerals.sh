#!/usr/bin/env bash
# Roman numeral conversion both ways, with validation and a round-trip self-test.
set -euo pipefail

values=(1000 900 500 400 100 90 50 40 10 9 5 4 1)
symbols=(M CM D CD C XC L XL X IX V IV I)

to_roman() {
    local n=$1 out="" i
    (( n >= 1 && n <= 3999 )) || { echo "out of range: $n" >&2; return 1; }
    for i in "${!values[@]}"; do
        while (( n >= values[i] )); do
            out+=${symbols[i]}
            (( n -= values[i] )) || true
        done
    done
    echo "$out"
}

from_roman() {
    local s=${1^^} total=0 i cur nxt
    # Strict form check with a regex.
    [[ $s =~ ^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$ && -n $s ]] \
        || { echo "invalid numeral: $1" >&2; return 1; }
    declare -A v=([I]=1 [V]=5 [X]=10 [L]=50 [C]=100 [D]=500 [M]=1000)
    for (( i = 0; i < ${#s}; i++ )); do
        cur=${v[${s:i:1}]}
        nxt=0
        (( i + 1 < ${#s} )) && nxt=${v[${s:i+1:1}]}
        if (( cur < nxt )); then (( total -= cur )); else (( total += cur )); fi
    done
    echo "$total"
}

for n in 1 4 9 14 40 90 400 1994 2024 3999; do
    printf '%5d -> %s\n' "$n" "$(to_roman "$n")"
done

echo
for r in XLII mcmxc MMXXV IIII VX IC ""; do
    if val=$(from_roman "$r" 2>&1); then
        printf '%-6s -> %d\n' "${r:-''}" "$val"
    else
        printf '%-6s -> error (%s)\n' "${r:-''}" "$val"
    fi
done

echo
bad=0
for (( n = 1; n <= 3999; n += 37 )); do
    r=$(to_roman "$n")
    back=$(from_roman "$r")
    (( back == n )) || { echo "round trip failed for $n ($r -> $back)"; bad=1; }
done
(( bad == 0 )) && echo "round trip OK for every 37th number up to 3999"
