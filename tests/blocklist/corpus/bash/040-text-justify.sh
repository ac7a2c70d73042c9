#!/usr/bin/env bash
# Wrap and fully justify a paragraph to a given width, in bash and in awk.
set -euo pipefail

width=${1:-44}
read -r -d '' text <<'EOF' || true
Shell scripts glue programs together. A good script checks its inputs,
quotes its variables, and fails loudly: "set -euo pipefail" helps, but it is
not magic. Prefer arrays over word splitting, $(...) over `...`, and [[ ]]
over [ ] when you are writing for bash specifically.
EOF

read -r -a words <<<"$(tr '\n' ' ' <<<"$text")"
echo "words: ${#words[@]}, width: $width"
echo "+$(printf '%*s' "$width" '' | tr ' ' '-')+"

justify_line() {   # justify_line WIDTH word...
    local w=$1; shift
    local n=$# len=0 word
    for word in "$@"; do (( len += ${#word} )); done
    if (( n == 1 )); then printf '%-*s' "$w" "$1"; return; fi
    local gaps=$(( n - 1 )) spaces=$(( w - len ))
    local base=$(( spaces / gaps )) extra=$(( spaces % gaps )) i=0 out=""
    for word in "$@"; do
        out+=$word
        if (( i < gaps )); then
            out+=$(printf '%*s' $(( base + (i < extra ? 1 : 0) )) '')
        fi
        (( ++i ))
    done
    printf '%s' "$out"
}

line=() linelen=0
for w in "${words[@]}"; do
    if (( ${#line[@]} > 0 && linelen + 1 + ${#w} > width )); then
        echo "|$(justify_line "$width" "${line[@]}")|"
        line=() linelen=0
    fi
    (( linelen += (${#line[@]} ? 1 : 0) + ${#w} ))
    line+=("$w")
done
(( ${#line[@]} )) && printf '|%-*s|\n' "$width" "${line[*]}"   # last line left-aligned
echo "+$(printf '%*s' "$width" '' | tr ' ' '-')+"

echo
echo "Same text, ragged right with fold -s at 30 columns, numbered with nl:"
tr '\n' ' ' <<<"$text" | fold -s -w 30 | sed 's/ *$//' | nl -w2 -s': '

echo
echo "Longest words (awk):"
tr -s ' \n' '\n\n' <<<"$text" | tr -d '.,:"' | awk 'length($0) > 7 { print length($0), $0 }' | sort -rn -k1,1 | head -4
