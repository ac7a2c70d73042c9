#!/usr/bin/env bash
# Build a project tree under /work, walk it, rename files, and clean up.
set -euo pipefail

root=/work/demo-project
rm -rf "$root"
mkdir -p "$root"/{src/{core,util},docs,tests,build}

# Populate with a few files of varying sizes.
printf 'int main(void) { return 0; }\n'      > "$root/src/core/main.c"
printf '#include "util.h"\n/* helpers */\n'  > "$root/src/util/util.c"
printf '#pragma once\n'                      > "$root/src/util/util.h"
printf '# Demo\n\nSome *docs*.\n'            > "$root/docs/README.md"
printf 'notes\n%.0s' {1..50}                 > "$root/docs/notes.txt"
printf 'test_ok\n'                           > "$root/tests/test_main.c"
head -c 2048 /dev/zero                       > "$root/build/main.o"

echo "== tree =="
find "$root" -mindepth 1 | sort | while read -r p; do
    rel=${p#"$root"/}
    depth=$(tr -cd '/' <<<"$rel" | wc -c)
    indent=$(printf '%*s' $(( depth * 2 )) '')
    if [[ -d $p ]]; then echo "${indent}${p##*/}/"; else echo "${indent}${p##*/}"; fi
done

echo
echo "== files by extension =="
declare -A by_ext=()
while IFS= read -r -d '' f; do
    name=${f##*/}
    ext=${name##*.}
    [[ $ext == "$name" ]] && ext="(none)"
    by_ext[$ext]=$(( ${by_ext[$ext]:-0} + 1 ))
done < <(find "$root" -type f -print0)
for e in $(printf '%s\n' "${!by_ext[@]}" | sort); do printf '  .%-6s %d\n' "$e" "${by_ext[$e]}"; done

echo
echo "== largest files =="
find "$root" -type f -printf '%s %P\n' | sort -rn | head -3 | awk '{ printf "  %6d bytes  %s\n", $1, $2 }'

echo
echo "== rename *.txt -> *.md =="
for f in "$root"/docs/*.txt; do
    mv -v -- "$f" "${f%.txt}.md" | sed "s|$root/||g"
done

echo
echo "== grep for includes =="
grep -rn --include='*.c' '#include' "$root" | sed "s|^$root/||"

echo
echo "== total size (du) =="
du -sb "$root" | awk '{ print "  " $1 " bytes" }'

rm -rf -- "$root/build"
echo "build/ removed; remaining dirs: $(find "$root" -mindepth 1 -type d | wc -l)"
rm -rf -- "$root"
[[ ! -e $root ]] && echo "cleaned up $root"
