#!/usr/bin/env bash
# Date arithmetic with GNU date: durations, weekdays, month ends, ISO weeks, time zones.
set -euo pipefail
export TZ=UTC

to_epoch() { date -d "$1" +%s; }
days_between() { echo $(( ( $(to_epoch "$2") - $(to_epoch "$1") ) / 86400 )); }

echo "Days from 2024-01-01 to 2024-12-25: $(days_between 2024-01-01 2024-12-25)"
echo "Days in leap-year February:  $(date -d '2024-03-01 - 1 day' +%d)"
echo "Days in normal February:     $(date -d '2023-03-01 - 1 day' +%d)"

echo
echo "Weekdays of the 13th in 2026:"
for m in $(seq -w 1 12); do
    d="2026-$m-13"
    dow=$(date -d "$d" +%A)
    [[ $dow == Friday ]] && mark=" <- Friday the 13th" || mark=""
    printf '  %s %-9s%s\n' "$d" "$dow" "$mark"
done

echo
echo "Last day of each quarter in 2025:"
for q in 1 2 3 4; do
    first_of_next=$(( q * 3 + 1 ))
    if (( first_of_next > 12 )); then
        end=$(date -d "2026-01-01 - 1 day" +%F)
    else
        end=$(date -d "$(printf '2025-%02d-01' "$first_of_next") - 1 day" +%F)
    fi
    echo "  Q$q ends $end (ISO week $(date -d "$end" +%V))"
done

echo
echo "Human-readable durations:"
fmt_duration() {
    local s=$1 d h m
    (( d = s / 86400, s %= 86400, h = s / 3600, s %= 3600, m = s / 60, s %= 60 ))
    local out=""
    (( d )) && out+="${d}d "
    (( h )) && out+="${h}h "
    (( m )) && out+="${m}m "
    echo "${out}${s}s"
}
for secs in 59 3600 3725 90061 1000000; do
    printf '  %8d s = %s\n' "$secs" "$(fmt_duration "$secs")"
done

echo
echo "Same instant in several zones (POSIX TZ strings, no tzdata needed):"
instant="2024-07-04T12:00:00Z"
for zone in UTC EST5EDT,M3.2.0,M11.1.0 CET-1CEST,M3.5.0,M10.5.0/3 JST-9; do
    printf '  %-28s %s\n' "$zone" "$(TZ=$zone date -d "$instant" '+%F %H:%M %Z')"
done

echo
echo "Parsing log timestamps and sorting them:"
printf '%s\n' "2024-03-10 08:15:00" "2023-12-31 23:59:59" "2024-03-09 17:45:30" |
    while read -r day time; do echo "$(to_epoch "$day $time") $day $time"; done |
    sort -n | awk '{ print "  " $2 " " $3 }'

echo "Today is a $(date +%A); printf says year $(printf '%(%Y)T' -1)."
