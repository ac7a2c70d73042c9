#!/usr/bin/env bash
# "Object-style" bank accounts: namespaced functions over associative-array state.
set -euo pipefail

declare -A balance=() owner=() kind=()
declare -a ledger=()
next_id=100

account_new() {   # account_new OWNER KIND INITIAL_CENTS -> prints id
    local id="ACC$(( next_id++ ))"
    owner[$id]=$1 kind[$id]=$2 balance[$id]=$3
    ledger+=("$id open $3")
    REPLY=$id
}

account_deposit() {
    local id=$1 amt=$2
    [[ -n ${owner[$id]:-} ]] || { echo "error: no such account $id" >&2; return 2; }
    (( amt > 0 )) || { echo "error: deposit must be positive" >&2; return 3; }
    balance[$id]=$(( balance[$id] + amt ))
    ledger+=("$id deposit $amt")
}

account_withdraw() {
    local id=$1 amt=$2 limit=0
    [[ -n ${owner[$id]:-} ]] || { echo "error: no such account $id" >&2; return 2; }
    [[ ${kind[$id]} == checking ]] && limit=5000     # overdraft allowed on checking
    if (( balance[$id] - amt < -limit )); then
        echo "error: insufficient funds in $id" >&2
        return 4
    fi
    balance[$id]=$(( balance[$id] - amt ))
    ledger+=("$id withdraw $amt")
}

transfer() {
    local from=$1 to=$2 amt=$3
    account_withdraw "$from" "$amt" || return
    if ! account_deposit "$to" "$amt"; then
        account_deposit "$from" "$amt"   # roll back
        return 5
    fi
}

savings_add_interest() {   # basis points, applied to savings only
    local bp=$1 id interest
    for id in "${!kind[@]}"; do
        [[ ${kind[$id]} == savings ]] || continue
        interest=$(( balance[$id] * bp / 10000 ))
        (( interest > 0 )) && account_deposit "$id" "$interest"
    done
    return 0
}

money() { local c=$1 sign=""; (( c < 0 )) && { sign="-"; c=$(( -c )); }; printf '%s$%d.%02d' "$sign" $(( c / 100 )) $(( c % 100 )); }

account_new "Alice" checking 12000; alice=$REPLY
account_new "Bob" savings 250000; bob=$REPLY

account_deposit "$alice" 3050
transfer "$bob" "$alice" 20000
account_withdraw "$alice" 42000 || echo "  (withdrawal refused, status $?)"
account_withdraw "$alice" 36000
account_deposit "$alice" -5 || echo "  (bad deposit refused, status $?)"
transfer "$alice" ACC999 100 || echo "  (transfer to unknown account refused, status $?)"
savings_add_interest 125

echo
printf '%-7s %-6s %-9s %12s\n' ID OWNER KIND BALANCE
for id in $(printf '%s\n' "${!owner[@]}" | sort); do
    printf '%-7s %-6s %-9s %12s\n' "$id" "${owner[$id]}" "${kind[$id]}" "$(money "${balance[$id]}")"
done
echo
echo "Ledger (${#ledger[@]} entries):"
printf '  %s\n' "${ledger[@]}"
