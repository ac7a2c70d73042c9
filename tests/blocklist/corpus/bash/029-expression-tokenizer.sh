#!/usr/bin/env bash
# Tokenise and evaluate arithmetic expressions with a shunting-yard parser.
set -euo pipefail

tokenize() {
    local s=$1 i=0 c num tokens=()
    while (( i < ${#s} )); do
        c=${s:i:1}
        case $c in
            ' ') (( ++i )) ;;
            [0-9])
                num=""
                while (( i < ${#s} )) && [[ ${s:i:1} == [0-9] ]]; do num+=${s:i:1}; (( ++i )); done
                tokens+=("$num") ;;
            '+'|'-'|'*'|'/'|'%'|'('|')') tokens+=("$c"); (( ++i )) ;;
            *) echo "unexpected character '$c' at $i" >&2; return 1 ;;
        esac
    done
    printf '%s\n' "${tokens[@]}"
}

prec() { case $1 in '+'|'-') echo 1 ;; '*'|'/'|'%') echo 2 ;; *) echo 0 ;; esac; }

to_rpn() {
    local -a out=() ops=()
    local t
    while read -r t; do
        case $t in
            [0-9]*) out+=("$t") ;;
            '(') ops+=("$t") ;;
            ')')
                while (( ${#ops[@]} )) && [[ ${ops[-1]} != '(' ]]; do out+=("${ops[-1]}"); unset 'ops[-1]'; done
                (( ${#ops[@]} )) || { echo "unbalanced ')'" >&2; return 1; }
                unset 'ops[-1]' ;;
            *)
                while (( ${#ops[@]} )) && [[ ${ops[-1]} != '(' ]] && (( $(prec "${ops[-1]}") >= $(prec "$t") )); do
                    out+=("${ops[-1]}"); unset 'ops[-1]'
                done
                ops+=("$t") ;;
        esac
    done
    while (( ${#ops[@]} )); do
        [[ ${ops[-1]} == '(' ]] && { echo "unbalanced '('" >&2; return 1; }
        out+=("${ops[-1]}"); unset 'ops[-1]'
    done
    echo "${out[*]}"
}

eval_rpn() {
    local -a st=()
    local t a b
    for t in $1; do
        if [[ $t =~ ^[0-9]+$ ]]; then st+=("$t"); continue; fi
        b=${st[-1]}; unset 'st[-1]'; a=${st[-1]}; unset 'st[-1]'
        case $t in
            '+') st+=($(( a + b ))) ;;
            '-') st+=($(( a - b ))) ;;
            '*') st+=($(( a * b ))) ;;
            '/') st+=($(( a / b ))) ;;
            '%') st+=($(( a % b ))) ;;
        esac
    done
    echo "${st[0]}"
}

set -f   # the RPN string contains '*'; keep it from being globbed
for expr in "1 + 2 * 3" "(1 + 2) * 3" "100 / (4 + 6) - 7 % 4" "2 * (3 + (4 - 1)) * 5" "(8 + 2" "7 $ 3"; do
    if rpn=$( { tokenize "$expr" | to_rpn; } 2>&1 ); then
        got=$(eval_rpn "$rpn")
        want=$(( expr ))
        printf '%-24s rpn: %-22s = %-5s (bash says %s)\n' "$expr" "$rpn" "$got" "$want"
    else
        printf '%-24s error: %s\n' "$expr" "${rpn%%$'\n'*}"
    fi
done
set +f
