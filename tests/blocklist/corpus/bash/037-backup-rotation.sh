#!/usr/bin/env bash
# Create dated tar.gz backups of a directory and keep only the newest N.
set -euo pipefail

src=/work/site
dest=/work/backups
keep=3

rm -rf "$src" "$dest"
mkdir -p "$src/pages" "$src/assets" "$dest"
for p in index about contact; do
    printf '<h1>%s</h1>\n' "$p" > "$src/pages/$p.html"
done
printf 'body { margin: 0 }\n' > "$src/assets/site.css"

make_backup() {   # make_backup TIMESTAMP
    local stamp=$1 file
    file="$dest/site-$stamp.tar.gz"
    tar -C "${src%/*}" -czf "$file" "${src##*/}"
    touch -d "${stamp:0:4}-${stamp:4:2}-${stamp:6:2} ${stamp:9:2}:${stamp:11:2}" "$file"
    echo "$file"
}

# Simulate six nightly runs with a change in between.
for day in 01 02 03 04 05 06; do
    f=$(make_backup "202406${day}-0200")
    echo "day $day -> ${f##*/} ($(stat -c %s "$f") bytes)"
    echo "<p>updated on day $day</p>" >> "$src/pages/index.html"
done

echo
echo "before rotation: $(ls -1 "$dest" | wc -l) archives"
mapfile -t old < <(ls -1t "$dest"/site-*.tar.gz | tail -n +$(( keep + 1 )))
for f in "${old[@]}"; do
    rm -- "$f"
    echo "  removed ${f##*/}"
done
echo "after rotation:  $(ls -1 "$dest" | wc -l) archives"
ls -1t "$dest" | sed 's/^/  kept /'

echo
newest=$(ls -1t "$dest"/*.tar.gz | head -1)
echo "contents of ${newest##*/}:"
tar -tzf "$newest" | sort | sed 's/^/  /'

restore=$(mktemp -d /tmp/restore.XXXXXX)
tar -C "$restore" -xzf "$newest"
if diff -r "$src" "$restore/site" >/dev/null; then
    echo "restore check: identical"
else
    echo "restore check: differs (expected: the last edit came after the backup)"
    diff "$src/pages/index.html" "$restore/site/pages/index.html" | sed 's/^/  /' || true
fi
rm -rf "$restore" "$src" "$dest"
