#!/usr/bin/env bash
# A reverse-Polish-notation calculator with integer arithmetic and a few stack ops.
set -uo pipefail

stack=()
push() { stack+=("$1"); }
pop() {
    (( ${#stack[@]} > 0 )) || { echo "stack underflow" >&2; return 1; }
    REPLY=${stack[-1]}
    unset 'stack[-1]'
}

evaluate() {
    local expr=$1 tok a b
    stack=()
    read -r -a tokens <<<"$expr"
    for tok in "${tokens[@]}"; do
        case $tok in
            -[0-9]*|[0-9]*) push "$tok" ;;
            +|-|'*'|/|%|'^')
                pop || return 1; b=$REPLY
                pop || return 1; a=$REPLY
                case $tok in
                    +) push $(( a + b )) ;;
                    -) push $(( a - b )) ;;
                    '*') push $(( a * b )) ;;
                    /|%) (( b == 0 )) && { echo "division by zero" >&2; return 1; }
                         if [[ $tok == / ]]; then push $(( a / b )); else push $(( a % b )); fi ;;
                    '^') push $(( a ** b )) ;;
                esac ;;
            dup)  pop || return 1; push "$REPLY"; push "$REPLY" ;;
            swap) pop || return 1; b=$REPLY; pop || return 1; push "$b"; push "$REPLY" ;;
            neg)  pop || return 1; push $(( -REPLY )) ;;
            *) echo "unknown token: '$tok'" >&2; return 1 ;;
        esac
    done
    (( ${#stack[@]} == 1 )) || { echo "malformed expression (${#stack[@]} items left)" >&2; return 1; }
    echo "${stack[0]}"
}

while IFS='|' read -r expr want; do
    [[ -z $expr || $expr == \#* ]] && continue
    got=$(evaluate "$expr" 2>&1)
    status=$([[ $got == "$want" ]] && echo pass || echo FAIL)
    printf '%-24s => %-22s [%s]\n' "$expr" "$got" "$status"
done <<'EOF'
# expression | expected
3 4 +|7
5 1 2 + 4 * + 3 -|14
2 10 ^|1024
7 2 /|3
7 2 %|1
9 dup *|81
1 2 swap -|1
4 neg 3 *|-12
1 0 /|division by zero
1 +|stack underflow
1 2 3 +|malformed expression (2 items left)
2 x +|unknown token: 'x'
EOF
exit 0
