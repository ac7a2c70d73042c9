#!/usr/bin/env bash
# Parse and compare semantic versions (MAJOR.MINOR.PATCH[-pre][+build]).
set -euo pipefail

semver_re='^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-([0-9A-Za-z.-]+))?(\+([0-9A-Za-z.-]+))?$'

parse() {   # parse VERSION -> "major minor patch pre"
    [[ $1 =~ $semver_re ]] || return 1
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} ${BASH_REMATCH[5]}"
}

# compare A B -> prints -1, 0 or 1 (build metadata is ignored, per the spec)
compare() {
    local a b i
    read -r -a a <<<"$(parse "$1")"
    read -r -a b <<<"$(parse "$2")"
    for i in 0 1 2; do
        (( a[i] < b[i] )) && { echo -1; return; }
        (( a[i] > b[i] )) && { echo 1; return; }
    done
    local pa=${a[3]:-} pb=${b[3]:-}
    [[ -z $pa && -z $pb ]] && { echo 0; return; }
    [[ -z $pa ]] && { echo 1; return; }      # release > pre-release
    [[ -z $pb ]] && { echo -1; return; }
    local IFS=. x y
    local -a A=($pa) B=($pb)
    for (( i = 0; i < ${#A[@]} || i < ${#B[@]}; i++ )); do
        x=${A[i]-} y=${B[i]-}
        [[ -z $x ]] && { echo -1; return; }
        [[ -z $y ]] && { echo 1; return; }
        if [[ $x =~ ^[0-9]+$ && $y =~ ^[0-9]+$ ]]; then
            (( x < y )) && { echo -1; return; }
            (( x > y )) && { echo 1; return; }
        elif [[ $x != "$y" ]]; then
            [[ $x < $y ]] && echo -1 || echo 1
            return
        fi
    done
    echo 0
}

sym() { case $1 in -1) echo "<" ;; 0) echo "=" ;; 1) echo ">" ;; esac; }

while read -r a b; do
    [[ -z $a || $a == \#* ]] && continue
    printf '%-22s %s %s\n' "$a" "$(sym "$(compare "$a" "$b")")" "$b"
done <<'EOF'
# pairs to compare
1.0.0 2.0.0
2.1.0 2.0.9
1.0.0-alpha 1.0.0
1.0.0-alpha.1 1.0.0-alpha.beta
1.0.0-beta.2 1.0.0-beta.11
1.0.0+build.5 1.0.0+build.9
v3.10.2 v3.9.7
EOF

echo
echo "Validation:"
for v in 1.2.3 01.2.3 1.2 1.2.3-rc.1+sha.5114f85 v10.0.0 1.2.3.4; do
    if fields=$(parse "$v"); then
        set -- $fields
        printf '  %-24s ok   (major=%s minor=%s patch=%s pre=%s)\n' "$v" "$1" "$2" "$3" "${4:-none}"
    else
        printf '  %-24s invalid\n' "$v"
    fi
done

echo
echo "Sorted with a bash insertion sort using compare():"
list=(1.10.0 1.2.0 1.2.0-rc.1 0.9.12 1.2.0-beta 2.0.0 1.10.0-alpha)
for (( i = 1; i < ${#list[@]}; i++ )); do
    key=${list[i]}
    for (( j = i - 1; j >= 0; j-- )); do
        [[ $(compare "${list[j]}" "$key") == 1 ]] || break
        list[j+1]=${list[j]}
    done
    list[j+1]=$key
done
echo "  ${list[*]}"
echo "GNU sort -V says: $(printf '%s\n' 1.10.0 1.2.0 0.9.12 2.0.0 | sort -V | paste -sd' ')"
