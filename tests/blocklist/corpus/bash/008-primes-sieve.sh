#!/usr/bin/env bash
# Sieve of Eratosthenes, twin primes, and a cross-check against coreutils `factor`.
set -euo pipefail

limit=${1:-500}
declare -a composite=()

for (( i = 2; i * i <= limit; i++ )); do
    (( composite[i] )) && continue
    for (( j = i * i; j <= limit; j += i )); do
        composite[j]=1
    done
done

primes=()
for (( i = 2; i <= limit; i++ )); do
    (( ${composite[i]:-0} )) || primes+=("$i")
done

echo "There are ${#primes[@]} primes <= $limit"
echo "First ten: ${primes[*]:0:10}"
echo "Last five: ${primes[*]: -5}"

twins=()
for (( k = 1; k < ${#primes[@]}; k++ )); do
    if (( primes[k] - primes[k-1] == 2 )); then
        twins+=("(${primes[k-1]},${primes[k]})")
    fi
done
echo "Twin prime pairs: ${#twins[@]}; largest ${twins[-1]}"

# Largest gap between consecutive primes.
gap=0 at=0
for (( k = 1; k < ${#primes[@]}; k++ )); do
    d=$(( primes[k] - primes[k-1] ))
    (( d > gap )) && { gap=$d; at=${primes[k-1]}; }
done
echo "Largest gap: $gap after $at"

# `factor` prints "n: n" for primes; verify a sample of our results.
bad=0
for p in "${primes[@]:0:40}"; do
    out=$(factor "$p")
    [[ $out == "$p: $p" ]] || { echo "factor disagrees on $p: $out"; bad=1; }
done
(( bad )) || echo "factor(1) confirms the first 40 primes"

echo "Factorisations:"
for n in 360 1001 4096 9973; do
    printf '  %s\n' "$(factor "$n")"
done
