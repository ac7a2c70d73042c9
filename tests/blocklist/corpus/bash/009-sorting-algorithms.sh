#!/usr/bin/env bash
# Insertion sort, merge sort and quicksort on bash arrays, verified against sort -n.
set -euo pipefail

RANDOM=2024   # seed for a reproducible data set
data=()
for (( i = 0; i < 40; i++ )); do data+=($(( RANDOM % 1000 - 300 ))); done

insertion_sort() {
    local -n arr=$1
    local i j key
    for (( i = 1; i < ${#arr[@]}; i++ )); do
        key=${arr[i]}
        for (( j = i - 1; j >= 0 && arr[j] > key; j-- )); do
            arr[j+1]=${arr[j]}
        done
        arr[j+1]=$key
    done
}

merge_sort() {   # prints the sorted list, one per line
    (( $# <= 1 )) && { (( $# )) && echo "$1"; return; }
    local mid=$(( $# / 2 ))
    local -a left=("${@:1:mid}") right=("${@:mid+1}")
    local -a l r
    mapfile -t l < <(merge_sort "${left[@]}")
    mapfile -t r < <(merge_sort "${right[@]}")
    local i=0 j=0
    while (( i < ${#l[@]} && j < ${#r[@]} )); do
        if (( l[i] <= r[j] )); then echo "${l[i++]}"; else echo "${r[j++]}"; fi
    done
    while (( i < ${#l[@]} )); do echo "${l[i++]}"; done
    while (( j < ${#r[@]} )); do echo "${r[j++]}"; done
}

quicksort() {
    local -n qa=$1
    local lo=$2 hi=$3
    (( lo >= hi )) && return
    local pivot=${qa[hi]} i=$lo j tmp
    for (( j = lo; j < hi; j++ )); do
        if (( qa[j] < pivot )); then
            tmp=${qa[i]}; qa[i]=${qa[j]}; qa[j]=$tmp; (( ++i ))
        fi
    done
    tmp=${qa[i]}; qa[i]=${qa[hi]}; qa[hi]=$tmp
    quicksort "$1" "$lo" $(( i - 1 ))
    quicksort "$1" $(( i + 1 )) "$hi"
}

mapfile -t expected < <(printf '%s\n' "${data[@]}" | sort -n)

a=("${data[@]}"); insertion_sort a
mapfile -t m < <(merge_sort "${data[@]}")
q=("${data[@]}"); quicksort q 0 $(( ${#q[@]} - 1 ))

echo "input:    ${data[*]:0:12} ..."
echo "expected: ${expected[*]:0:12} ..."
for name in a m q; do
    declare -n res=$name
    if [[ "${res[*]}" == "${expected[*]}" ]]; then
        echo "$name: OK (${#res[@]} elements)"
    else
        echo "$name: MISMATCH"; exit 1
    fi
    unset -n res
done
echo "min=${expected[0]} max=${expected[-1]} median=${expected[${#expected[@]}/2]}"
