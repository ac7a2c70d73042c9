#!/usr/bin/env bash
# Dynamic programming: Levenshtein distance, LCS, and a "did you mean" helper.
set -uo pipefail

levenshtein() {
    local a=$1 b=$2 i j cost la=${#1} lb=${#2}
    local -a prev cur
    for (( j = 0; j <= lb; j++ )); do prev[j]=$j; done
    for (( i = 1; i <= la; i++ )); do
        cur=([0]=$i)
        for (( j = 1; j <= lb; j++ )); do
            [[ ${a:i-1:1} == "${b:j-1:1}" ]] && cost=0 || cost=1
            local del=$(( prev[j] + 1 )) ins=$(( cur[j-1] + 1 )) sub=$(( prev[j-1] + cost ))
            local m=$del
            (( ins < m )) && m=$ins
            (( sub < m )) && m=$sub
            cur[j]=$m
        done
        prev=("${cur[@]}")
    done
    echo "${prev[lb]}"
}

lcs() {
    local a=$1 b=$2 i j la=${#1} lb=${#2}
    local -A L=()
    for (( i = 0; i <= la; i++ )); do L[$i,0]=0; done
    for (( j = 0; j <= lb; j++ )); do L[0,$j]=0; done
    for (( i = 1; i <= la; i++ )); do
        for (( j = 1; j <= lb; j++ )); do
            if [[ ${a:i-1:1} == "${b:j-1:1}" ]]; then
                L[$i,$j]=$(( L[$((i-1)),$((j-1))] + 1 ))
            else
                local u=${L[$((i-1)),$j]} l=${L[$i,$((j-1))]}
                L[$i,$j]=$(( u > l ? u : l ))
            fi
        done
    done
    # Walk back to recover one LCS string.
    local out=""
    i=$la j=$lb
    while (( i > 0 && j > 0 )); do
        if [[ ${a:i-1:1} == "${b:j-1:1}" ]]; then
            out=${a:i-1:1}$out; (( i--, j-- ))
        elif (( L[$((i-1)),$j] >= L[$i,$((j-1))] )); then
            (( i-- ))
        else
            (( j-- ))
        fi
    done
    echo "$out"
}

printf '%-12s %-12s %5s  %s\n' A B DIST LCS
while read -r a b; do
    printf '%-12s %-12s %5d  %s\n' "$a" "$b" "$(levenshtein "$a" "$b")" "$(lcs "$a" "$b")"
done <<'EOF'
kitten sitting
flaw lawn
intention execution
bash bash
gumbo gambol
EOF

echo
commands=(status commit checkout branch merge rebase stash fetch diff log)
did_you_mean() {
    local typo=$1 best="" best_d=99 c d
    for c in "${commands[@]}"; do
        d=$(levenshtein "$typo" "$c")
        (( d < best_d )) && { best=$c; best_d=$d; }
    done
    if (( best_d <= 2 )); then
        echo "git: '$typo' is not a command. Did you mean '$best'?"
    else
        echo "git: '$typo' is not a command and nothing is close."
    fi
}
for t in stauts comit chekout rebsae xyzzy; do did_you_mean "$t"; done
