#!/usr/bin/env bash
# Compare two package lists using process substitution with diff, comm, join and paste.
set -euo pipefail

installed() {
    cat <<'EOF'
bash 5.2.15
coreutils 9.1
curl 7.88.1
gawk 5.2.1
grep 3.8
openssl 3.0.11
sed 4.9
EOF
}

required() {
    cat <<'EOF'
bash 5.2.15
coreutils 9.1
gawk 5.2.1
git 2.39.2
grep 3.11
jq 1.6
sed 4.9
EOF
}

echo "== unified diff =="
diff -u <(installed) <(required) | tail -n +3 || true

echo
echo "== only installed / only required / both (package names) =="
comm <(installed | cut -d' ' -f1 | sort) <(required | cut -d' ' -f1 | sort) \
    | awk -F'\t' '{ if ($3 != "") print "both:      " $3
                    else if ($2 != "") print "required:  " $2
                    else print "installed: " $1 }'

echo
echo "== version mismatches (join on name) =="
join <(installed | sort) <(required | sort) | awk '$2 != $3 { printf "%-10s have %-8s want %s\n", $1, $2, $3 }'

echo
echo "== side by side =="
paste -d'|' <(installed | awk '{print $1}') <(required | awk '{print $1}') \
    | while IFS='|' read -r left right; do printf '%-10s | %s\n' "$left" "$right"; done

echo
missing=0
while read -r pkg ver; do
    if ! grep -q "^$pkg " < <(installed); then
        echo "missing: $pkg $ver"
        (( ++missing ))
    fi
done < <(required)
echo "$missing package(s) missing"

# tee into two process substitutions at once
installed | tee >(wc -l > /tmp/pkg-count.txt) >(sha256sum | cut -c1-16 > /tmp/pkg-hash.txt) >/dev/null
wait
sleep 0.1
echo "installed list: $(cat /tmp/pkg-count.txt) lines, hash $(cat /tmp/pkg-hash.txt)"
rm -f /tmp/pkg-count.txt /tmp/pkg-hash.txt
