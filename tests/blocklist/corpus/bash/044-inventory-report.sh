#!/usr/bin/env bash
# Inventory management with associative arrays: receive, ship, reorder report.
set -euo pipefail

declare -A stock=() reorder_at=() price=() name=()

while IFS='|' read -r sku desc qty min cents; do
    [[ $sku == \#* ]] && continue
    name[$sku]=$desc stock[$sku]=$qty reorder_at[$sku]=$min price[$sku]=$cents
done <<'EOF'
# sku|description|qty|reorder_at|price_cents
B-001|Bolt M6 x 20|500|200|12
N-001|Nut M6|800|300|5
W-010|Washer 6mm|150|250|3
S-100|Screwdriver #2 Phillips|12|10|899
T-007|Tape measure 5m|4|5|1299
G-042|Safety glasses|30|15|450
EOF

receive() { stock[$1]=$(( ${stock[$1]:-0} + $2 )); echo "  received $2 x ${name[$1]}"; }

ship() {
    local sku=$1 qty=$2
    if (( ${stock[$sku]:-0} < qty )); then
        echo "  cannot ship $qty x ${name[$sku]:-$sku}: only ${stock[$sku]:-0} in stock" >&2
        return 1
    fi
    stock[$sku]=$(( stock[$sku] - qty ))
    echo "  shipped $qty x ${name[$sku]}"
}

echo "Transactions:"
while read -r op sku qty; do
    case $op in
        in)  receive "$sku" "$qty" ;;
        out) ship "$sku" "$qty" || true ;;
        *)   echo "  unknown op '$op'" ;;
    esac
done <<<"out B-001 350
out T-007 6
in W-010 400
out S-100 3
out G-042 20
audit X-000 0"

echo
printf '%-6s %-24s %6s %8s %10s  %s\n' SKU ITEM QTY PRICE VALUE NOTE
total=0
for sku in $(printf '%s\n' "${!stock[@]}" | sort); do
    value=$(( stock[$sku] * price[$sku] ))
    (( total += value ))
    note=""
    (( stock[$sku] <= reorder_at[$sku] )) && note="REORDER (min ${reorder_at[$sku]})"
    printf '%-6s %-24.24s %6d %5d.%02d %7d.%02d  %s\n' "$sku" "${name[$sku]}" "${stock[$sku]}" \
        $(( price[$sku] / 100 )) $(( price[$sku] % 100 )) $(( value / 100 )) $(( value % 100 )) "$note"
done
printf '%-6s %-24s %6s %8s %7d.%02d\n' "" "TOTAL" "" "" $(( total / 100 )) $(( total % 100 ))

mapfile -t low < <(for s in "${!stock[@]}"; do (( stock[$s] <= reorder_at[$s] )) && echo "$s"; done | sort)
echo
echo "${#low[@]} of ${#stock[@]} items need reordering: ${low[*]:-none}"
