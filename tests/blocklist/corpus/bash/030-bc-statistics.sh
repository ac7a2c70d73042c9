#!/usr/bin/env bash
# Descriptive statistics with bc for floating-point maths.
set -euo pipefail

# Response times in milliseconds from a load test.
samples=(120.5 98.2 143.9 101.1 99.7 250.3 110.0 105.4 97.8 130.2 118.6 102.3 99.9 180.4 108.8)

calc() { echo "scale=6; $*" | bc -l; }
round() { printf '%.*f' "$2" "$1"; }

n=${#samples[@]}
sum=$(IFS=+; calc "${samples[*]}")
mean=$(calc "$sum / $n")

sq=0
for x in "${samples[@]}"; do
    sq=$(calc "$sq + ($x - $mean)^2")
done
var=$(calc "$sq / ($n - 1)")
sd=$(calc "sqrt($var)")

mapfile -t sorted < <(printf '%s\n' "${samples[@]}" | sort -g)

percentile() {   # nearest-rank percentile
    local p=$1 rank
    rank=$(( (p * n + 99) / 100 ))
    (( rank < 1 )) && rank=1
    echo "${sorted[rank-1]}"
}

if (( n % 2 )); then
    median=${sorted[n/2]}
else
    median=$(calc "(${sorted[n/2-1]} + ${sorted[n/2]}) / 2")
fi

printf 'n        = %d\n' "$n"
printf 'min/max  = %s / %s\n' "${sorted[0]}" "${sorted[-1]}"
printf 'mean     = %s ms\n' "$(round "$mean" 2)"
printf 'median   = %s ms\n' "$(round "$median" 2)"
printf 'stddev   = %s ms\n' "$(round "$sd" 2)"
printf 'p90/p99  = %s / %s ms\n' "$(percentile 90)" "$(percentile 99)"

echo
echo "Outliers (|z| > 2):"
for x in "${samples[@]}"; do
    z=$(calc "($x - $mean) / $sd")
    if (( $(echo "$z > 2 || $z < -2" | bc -l) )); then
        printf '  %7s ms  z=%s\n' "$x" "$(round "$z" 2)"
    fi
done

echo
echo "Histogram (bucket = 25 ms):"
declare -A buckets=()
for x in "${samples[@]}"; do
    b=$(( ${x%.*} / 25 * 25 ))
    buckets[$b]=$(( ${buckets[$b]:-0} + 1 ))
done
for b in $(printf '%s\n' "${!buckets[@]}" | sort -n); do
    printf '  %3d-%3d | %s\n' "$b" $(( b + 24 )) "$(printf '#%.0s' $(seq "${buckets[$b]}"))"
done
