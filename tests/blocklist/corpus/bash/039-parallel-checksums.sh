#!/usr/bin/env bash
# Generate files, checksum them in parallel with xargs -P, and verify the manifest.
set -euo pipefail

dir=/work/blobs
rm -rf "$dir"; mkdir -p "$dir"

# Deterministic content: each file holds a different run of numbers.
for i in $(seq 1 12); do
    seq $(( i * 100 )) $(( i * 100 + i * 50 )) > "$dir/blob-$(printf '%02d' "$i").txt"
done
echo "created $(ls "$dir" | wc -l) files, $(du -sb "$dir" | cut -f1) bytes total"

# Parallel hashing: 2 workers, 3 files per invocation.
find "$dir" -name 'blob-*.txt' -print0 | sort -z \
    | xargs -0 -n 3 -P 2 sha256sum \
    | sort -k2 > "$dir/MANIFEST.sha256"
echo "manifest has $(wc -l < "$dir/MANIFEST.sha256") entries"
head -3 "$dir/MANIFEST.sha256" | awk '{ printf "  %s...  %s\n", substr($1, 1, 16), $2 }'

echo
echo "verify (all good):"
(cd "$dir" && sed "s|$dir/||" MANIFEST.sha256 | sha256sum --check --quiet) && echo "  OK"

echo "corrupt one file and verify again:"
echo "tampered" >> "$dir/blob-07.txt"
if ! (cd "$dir" && sed "s|$dir/||" MANIFEST.sha256 | sha256sum --check --quiet >/dev/null 2>&1); then
    (cd "$dir" && sed "s|$dir/||" MANIFEST.sha256 | sha256sum --check 2>/dev/null | grep -v ': OK$' | sed 's/^/  /') || true
fi

echo
echo "line counts via xargs with a placeholder:"
printf '%s\n' "$dir"/blob-0{1..4}.txt | xargs -I{} sh -c 'printf "  %-12s %4d lines\n" "$(basename "$1")" "$(wc -l < "$1")"' _ {}

echo
echo "largest three by size:"
find "$dir" -name '*.txt' -printf '%s %f\n' | sort -rn | head -3 | sed 's/^/  /'
rm -rf "$dir"
