#!/usr/bin/env bash
# Expand cron expressions into explicit values and find the next run times.
# (Editing the real crontab -- e.g. `crontab -r` wipes it! -- is out of scope here.)
set -euo pipefail
export TZ=UTC

expand_field() {   # expand_field FIELD MIN MAX -> space-separated values
    local field=$1 min=$2 max=$3 part range step lo hi v
    local -A seen=()
    IFS=, read -r -a parts <<<"$field"
    for part in "${parts[@]}"; do
        step=1 range=$part
        if [[ $part == */* ]]; then
            step=${part#*/}          # '#' here is a parameter expansion, not a comment
            range=${part%/*}
        fi
        case $range in
            '*')   lo=$min hi=$max ;;
            *-*)   lo=${range%-*} hi=${range#*-} ;;
            *)     lo=$range; hi=$([[ $part == */* ]] && echo "$max" || echo "$range") ;;
        esac
        [[ $lo =~ ^[0-9]+$ && $hi =~ ^[0-9]+$ && $step =~ ^[1-9][0-9]*$ ]] || { echo "bad field '$field'" >&2; return 1; }
        (( lo >= min && hi <= max && lo <= hi )) || { echo "out of range '$part' ($min-$max)" >&2; return 1; }
        for (( v = lo; v <= hi; v += step )); do seen[$v]=1; done
    done
    printf '%s\n' "${!seen[@]}" | sort -n | paste -sd' '
}

contains() { [[ " $1 " == *" $2 "* ]]; }

next_runs() {   # next_runs "m h dom mon dow" START_EPOCH COUNT
    # Simplified: dom and dow must both match (real cron ORs them when both are set).
    local -a f fields; read -r -a f <<<"$1"
    local mins hours doms mons dows found=0 start=$2 day limit stamp H M t
    mins=$(expand_field "${f[0]}" 0 59) && hours=$(expand_field "${f[1]}" 0 23) &&
    doms=$(expand_field "${f[2]}" 1 31) && mons=$(expand_field "${f[3]}" 1 12) &&
    dows=$(expand_field "${f[4]}" 0 6) || return 1
    day=$(( start / 86400 * 86400 ))
    limit=$(( day + 86400 * 1500 ))          # search a little over four years ahead
    while (( found < $3 && day < limit )); do
        printf -v stamp '%(%-d %-m %w)T' "$day"   # builtin strftime, no fork
        fields=($stamp)
        if contains "$doms" "${fields[0]}" && contains "$mons" "${fields[1]}" && contains "$dows" "${fields[2]}"; then
            for H in $hours; do
                for M in $mins; do
                    t=$(( day + H * 3600 + M * 60 ))
                    (( t > start )) || continue
                    printf '%(    %a %Y-%m-%d %H:%M)T\n' "$t"
                    (( ++found >= $3 )) && return 0
                done
            done
        fi
        (( day += 86400 ))
    done
    return 0
}

start=$(date -d '2024-02-27 22:50' +%s)
while IFS= read -r entry; do
    [[ -z $entry || $entry == \#* ]] && continue
    spec=$(cut -d' ' -f1-5 <<<"$entry")
    cmd=$(cut -d' ' -f6- <<<"$entry")
    echo "$spec  ->  $cmd"
    next_runs "$spec" "$start" 3 || echo "    (invalid expression)"
done <<'CRONTAB'
# m  h  dom mon dow  command
*/15 * * * * /usr/local/bin/poll-queue
0 2 * * 1-5 /opt/backup/run.sh --incremental
30 23 29 2 * echo "leap day report" # only in leap years
0 9,17 1 * * tar czf /tmp/archive.tgz /srv/data
5 70 * * * this-one-is-invalid
CRONTAB
