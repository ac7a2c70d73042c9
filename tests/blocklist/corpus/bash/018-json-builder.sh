#!/usr/bin/env bash
# Build JSON by hand with proper escaping, then pull fields back out with grep/sed.
set -euo pipefail

json_escape() {
    local s=$1
    s=${s//\\/\\\\}          # backslash first
    s=${s//\"/\\\"}          # then double quotes
    s=${s//$'\n'/\\n}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/\\r}
    printf '"%s"' "$s"
}

json_object() {   # usage: json_object key value [key value ...]
    local out="{" sep="" k v
    while (( $# >= 2 )); do
        k=$1 v=$2; shift 2
        if [[ $v =~ ^-?[0-9]+(\.[0-9]+)?$ || $v == true || $v == false || $v == null ]]; then
            out+="$sep$(json_escape "$k"):$v"
        else
            out+="$sep$(json_escape "$k"):$(json_escape "$v")"
        fi
        sep=","
    done
    printf '%s}' "$out"
}

records=()
records+=("$(json_object id 1 name "Ada Lovelace" note 'She said "hello"' active true)")
records+=("$(json_object id 2 name 'O'"'"'Brien' note $'two\nlines\tand a tab' active false)")
records+=("$(json_object id 3 name "Path Tester" note 'C:\Users\demo' score 9.5)")
records+=("$(json_object id 4 name "Shell Fan" note 'prints "$(whoami)" and `date` literally' active null)")

out=/work/people.json
{
    echo "["
    for i in "${!records[@]}"; do
        sep=$([[ $i -lt $(( ${#records[@]} - 1 )) ]] && echo "," || echo "")
        echo "  ${records[$i]}$sep"
    done
    echo "]"
} > "$out"

echo "Wrote $out ($(wc -c < "$out") bytes):"
cat "$out"

echo
echo "Names:"
grep -o '"name":"[^"]*"' "$out" | sed -E 's/"name":"(.*)"/  - \1/'

echo "Active ids:"
grep -E '"active":true' "$out" | sed -E 's/.*"id":([0-9]+).*/  - \1/'

# Count escaped quotes to show the escaping survived the round trip.
esc=$(grep -o '\\"' "$out" | wc -l)
echo "Escaped double quotes in file: $esc"

# Validate with perl's core JSON::PP if it is available.
if perl -MJSON::PP -e 1 2>/dev/null; then
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); printf "perl parsed %d records; #2 note has %d lines\n", scalar @$d, scalar split /\n/, $d->[1]{note};' < "$out"
fi
rm -f "$out"
