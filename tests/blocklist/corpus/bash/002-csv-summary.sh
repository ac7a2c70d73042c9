#!/usr/bin/env bash
# Write a small sales CSV into /work and summarise it per region and per month.
set -euo pipefail

data=/work/sales.csv
cat > "$data" <<EOF
date,region,product,units,unit_price
2024-01-03,north,widget,12,2.50
2024-01-17,south,gadget,3,19.99
2024-01-22,north,gadget,5,19.99
2024-02-02,east,widget,40,2.45
2024-02-14,south,widget,7,2.50
2024-02-28,east,doohickey,2,105.00
2024-03-05,north,doohickey,1,110.00
2024-03-09,south,gadget,9,18.75
2024-03-30,east,widget,25,2.40
EOF

echo "Rows (excluding header): $(( $(wc -l < "$data") - 1 ))"

echo
echo "== Revenue by region =="
awk -F, 'NR > 1 { rev[$2] += $4 * $5; units[$2] += $4 }
         END { for (r in rev) printf "%-6s units=%4d revenue=%9.2f\n", r, units[r], rev[r] }' "$data" | sort

echo
echo "== Revenue by month =="
declare -A month_rev=()
{
    read -r _header                      # skip the header line
    while IFS=, read -r date region product units price; do
        month=${date%-*}                 # 2024-01-03 -> 2024-01
        cents=$(awk -v u="$units" -v p="$price" 'BEGIN { printf "%d", u * p * 100 + 0.5 }')
        month_rev[$month]=$(( ${month_rev[$month]:-0} + cents ))
    done
} < "$data"

for m in $(printf '%s\n' "${!month_rev[@]}" | sort); do
    c=${month_rev[$m]}
    printf '%s  %6d.%02d\n' "$m" $(( c / 100 )) $(( c % 100 ))
done

echo
echo "== Best-selling product by units =="
tail -n +2 "$data" | cut -d, -f3,4 | awk -F, '{ u[$1] += $2 } END { for (p in u) print u[p], p }' \
    | sort -rn | head -1 | { read -r n p; echo "$p ($n units)"; }

rm -f "$data"
