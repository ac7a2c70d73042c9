#!/usr/bin/env bash
# Fibonacci numbers three ways: naive recursion, memoisation, and iteration.
set -euo pipefail

fib_naive() {
    local n=$1
    if (( n < 2 )); then echo "$n"; return; fi
    echo $(( $(fib_naive $(( n - 1 ))) + $(fib_naive $(( n - 2 ))) ))
}

declare -A memo=([0]=0 [1]=1)
fib_memo() {
    # Result goes into the global REPLY to avoid subshells (which would lose the memo).
    local n=$1 a b
    if [[ -n ${memo[$n]+set} ]]; then REPLY=${memo[$n]}; return; fi
    fib_memo $(( n - 1 )); a=$REPLY
    fib_memo $(( n - 2 )); b=$REPLY
    memo[$n]=$(( a + b ))
    REPLY=${memo[$n]}
}

fib_iter() {
    local n=$1 a=0 b=1 i
    for (( i = 0; i < n; i++ )); do
        (( b = a + b, a = b - a ))
    done
    echo "$a"
}

echo "naive:  fib(12) = $(fib_naive 12)"
fib_memo 60
echo "memo:   fib(60) = $REPLY (memo holds ${#memo[@]} entries)"
echo "iter:   fib(90) = $(fib_iter 90)"

# Cross-check the first 30 values between the two fast methods.
mismatch=0
for n in $(seq 0 30); do
    fib_memo "$n"
    [[ $REPLY == "$(fib_iter "$n")" ]] || { echo "mismatch at $n"; mismatch=1; }
done
(( mismatch == 0 )) && echo "memo and iter agree for n=0..30"

# Ratio of consecutive terms approaches the golden ratio.
fib_memo 40; f40=$REPLY
fib_memo 39; f39=$REPLY
printf 'fib(40)/fib(39) = %s\n' "$(echo "scale=12; $f40 / $f39" | bc -l)"
printf 'golden ratio    = %s\n' "$(echo "scale=12; (1 + sqrt(5)) / 2" | bc -l)"
