#!/usr/bin/env bash
# Integer matrix operations using associative arrays keyed by "row,col".
set -euo pipefail

# load_matrix NAME <<< "rows" ; rows separated by newlines, columns by spaces
load_matrix() {
    local -n M=$1
    local r=0 c line
    M=()
    while read -r line; do
        [[ -z $line ]] && continue
        read -r -a cols <<<"$line"
        for c in "${!cols[@]}"; do M[$r,$c]=${cols[c]}; done
        (( ++r ))
    done
    M[rows]=$r
    M[cols]=${#cols[@]}
}

print_matrix() {
    local -n P=$1
    local r c
    echo "$1 (${P[rows]}x${P[cols]}):"
    for (( r = 0; r < P[rows]; r++ )); do
        printf '  '
        for (( c = 0; c < P[cols]; c++ )); do printf '%6d' "${P[$r,$c]}"; done
        echo
    done
}

multiply() {   # multiply A B C  ->  C = A * B
    local -n X=$1 Y=$2 Z=$3
    (( X[cols] == Y[rows] )) || { echo "dimension mismatch" >&2; return 1; }
    local i j k sum
    Z=([rows]=${X[rows]} [cols]=${Y[cols]})
    for (( i = 0; i < X[rows]; i++ )); do
        for (( j = 0; j < Y[cols]; j++ )); do
            sum=0
            for (( k = 0; k < X[cols]; k++ )); do (( sum += X[$i,$k] * Y[$k,$j] )); done
            Z[$i,$j]=$sum
        done
    done
}

transpose() {
    local -n S=$1 T=$2
    local i j
    T=([rows]=${S[cols]} [cols]=${S[rows]})
    for (( i = 0; i < S[rows]; i++ )); do
        for (( j = 0; j < S[cols]; j++ )); do T[$j,$i]=${S[$i,$j]}; done
    done
}

det3() {
    local -n D=$1
    echo $(( D[0,0] * (D[1,1] * D[2,2] - D[1,2] * D[2,1])
           - D[0,1] * (D[1,0] * D[2,2] - D[1,2] * D[2,0])
           + D[0,2] * (D[1,0] * D[2,1] - D[1,1] * D[2,0]) ))
}

declare -A A B C AT
load_matrix A <<'EOF'
2 -1 0
1  3 4
0  5 -2
EOF
load_matrix B <<'EOF'
1 0
2 1
-1 3
EOF

print_matrix A
print_matrix B
multiply A B C && print_matrix C
transpose A AT && print_matrix AT
echo "det(A) = $(det3 A)"
echo "det(A^T) = $(det3 AT)  (should match)"
multiply B A C 2>&1 || echo "B*A rejected as expected"
