#!/usr/bin/env bash
# Count word frequencies in a short passage and print the top entries.
set -euo pipefail

text=$(cat <<'EOF'
The quick brown fox jumps over the lazy dog. The dog sleeps;
the fox runs away. A quick fox is a happy fox, and a lazy dog
is a sleepy dog. Foxes and dogs: an old story, told again.
EOF
)

declare -A freq=()
total=0

# Normalise: lowercase, strip punctuation, one word per line.
while read -r word; do
    [[ -z $word ]] && continue
    freq[$word]=$(( ${freq[$word]:-0} + 1 ))   # bump the counter
    (( total += 1 ))
done < <(tr '[:upper:]' '[:lower:]' <<<"$text" | tr -c '[:alnum:]\n' ' ' | tr -s ' ' '\n')

echo "Total words : $total"
echo "Unique words: ${#freq[@]}"
echo

printf '%-10s %5s %7s\n' "WORD" "COUNT" "SHARE"
for w in "${!freq[@]}"; do
    printf '%s %d\n' "$w" "${freq[$w]}"
done | sort -k2,2nr -k1,1 | head -n 8 | while read -r w c; do
    pct=$(( c * 1000 / total ))
    printf '%-10s %5d %5d.%d%%\n' "$w" "$c" $(( pct / 10 )) $(( pct % 10 ))
done

# Longest word, using ${#var} for the length (that '#' is not a comment).
longest=""
for w in "${!freq[@]}"; do
    if (( ${#w} > ${#longest} )) || { (( ${#w} == ${#longest} )) && [[ $w < $longest ]]; }; then
        longest=$w
    fi
done
echo
echo "Longest word: '$longest' (${#longest} letters)"
