#!/usr/bin/env bash
# Prefix-tree autocomplete. Nodes are keys of an associative array ("prefix" -> child chars).
set -euo pipefail

declare -A children=() is_word=() weight=()
# children keys are prefixed with "_" so the root (empty prefix) is a valid key.

insert() {
    local word=$1 w=${2:-1} i prefix="" ch
    for (( i = 0; i < ${#word}; i++ )); do
        ch=${word:i:1}
        [[ ${children[_$prefix]:-} == *"$ch"* ]] || children[_$prefix]+=$ch
        prefix+=$ch
    done
    is_word[$word]=1
    weight[$word]=$w
}

collect() {   # collect PREFIX: print every stored word under PREFIX
    local prefix=$1 kids ch i
    [[ -n $prefix && -n ${is_word[$prefix]:-} ]] && echo "$prefix"
    kids=${children[_$prefix]:-}
    for (( i = 0; i < ${#kids}; i++ )); do
        ch=${kids:i:1}
        collect "$prefix$ch"
    done
}

complete() {  # top N suggestions by weight, then alphabetically
    local prefix=$1 n=${2:-3} word
    collect "$prefix" | while read -r word; do
        echo "${weight[$word]} $word"
    done | sort -k1,1nr -k2,2 | head -n "$n" | cut -d' ' -f2 | paste -sd, -
}

# Word list with usage counts, e.g. from a shell history.
while read -r count word; do
    insert "$word" "$count"
done <<'EOF'
120 git
 45 grep
 30 gawk
  8 gzip
 60 ls
  5 lsblk
 12 less
 40 make
  7 man
  9 mkdir
 22 mv
 18 sed
 14 sort
  3 seq
  2 sleep
 33 ssh
EOF

echo "Stored ${#is_word[@]} words in ${#children[@]} internal nodes"
for q in g gr m s se l x ""; do
    result=$(complete "$q" 4)
    printf '%-6s -> %s\n' "'${q}'" "${result:-(no match)}"
done

# Longest common prefix of everything under "s".
mapfile -t s_words < <(collect s)
lcp=${s_words[0]}
for w in "${s_words[@]}"; do
    while [[ ${w:0:${#lcp}} != "$lcp" ]]; do lcp=${lcp%?}; done
done
echo "words under 's': ${s_words[*]} (common prefix '$lcp')"
