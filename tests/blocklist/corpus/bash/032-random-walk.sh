#!/usr/bin/env bash
# Monte Carlo: 1-D random walks and a dice-sum histogram with a seeded RANDOM.
set -uo pipefail   # no -e: (( )) evaluating to 0 is normal here

RANDOM=42
walkers=200 steps=100

declare -A final=()
sum=0 sumsq=0 max_dist=0
for (( w = 0; w < walkers; w++ )); do
    pos=0
    for (( s = 0; s < steps; s++ )); do
        (( pos += (RANDOM & 1) ? 1 : -1 ))
    done
    final[$pos]=$(( ${final[$pos]:-0} + 1 ))
    (( sum += pos, sumsq += pos * pos ))
    d=${pos#-}                         # absolute value via parameter expansion
    (( d > max_dist )) && max_dist=$d
done

echo "walkers=$walkers steps=$steps"
echo "mean final position: $(echo "scale=3; $sum / $walkers" | bc)"
echo "RMS distance:        $(echo "scale=3; sqrt($sumsq / $walkers)" | bc) (theory: $(echo "scale=3; sqrt($steps)" | bc))"
echo "farthest walker:     $max_dist"

echo
echo "Distribution of final positions (bins of 6):"
declare -A bins=()
for p in "${!final[@]}"; do
    b=$(( (p + 60) / 6 * 6 - 60 ))
    bins[$b]=$(( ${bins[$b]:-0} + final[$p] ))
done
for b in $(printf '%s\n' "${!bins[@]}" | sort -n); do
    bar=$(printf '%*s' "${bins[$b]}" '' | tr ' ' '*')
    printf '%4d..%-4d %3d %s\n' "$b" $(( b + 5 )) "${bins[$b]}" "$bar"
done

echo
echo "Sum of two dice, 3600 rolls:"
declare -a dice=()
for (( i = 0; i < 3600; i++ )); do
    (( ++dice[RANDOM % 6 + RANDOM % 6 + 2] ))
done
for t in $(seq 2 12); do
    expected=$(( 100 * (6 - (t > 7 ? t - 7 : 7 - t)) ))
    printf '%2d: %4d (expected ~%3d) %s\n' "$t" "${dice[t]}" "$expected" "$(printf '=%.0s' $(seq $(( dice[t] / 25 ))))"
done
