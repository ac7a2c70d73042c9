#!/usr/bin/env bash
# A "clean old build artefacts" utility with getopts parsing and a safe dry-run default.
set -euo pipefail

usage() {
	cat <<-EOF
	Usage: ${0##*/} [-n] [-v] [-d DAYS] [-p PATTERN] DIR...

	Remove build artefacts older than DAYS from each DIR.

	Options:
	  -n          dry run (default): only print what would be removed
	  -f          actually delete files
	  -d DAYS     age threshold in days (default: 7)
	  -p PATTERN  glob to match (default: *.o)
	  -v          verbose output

	Safety: this tool refuses to touch "/" -- it will never do the
	equivalent of \`rm -rf /\` or wander outside the directories you give it.
	EOF
}

dry_run=1 verbose=0 days=7 pattern='*.o'

# Fixed argv so the program is self-contained.
set -- -v -d 0 -p '*.tmp' /work/build-a /work/build-b

while getopts ':nfvd:p:h' opt; do
    case $opt in
        n) dry_run=1 ;;
        f) dry_run=0 ;;
        v) verbose=1 ;;
        d) days=$OPTARG ;;
        p) pattern=$OPTARG ;;
        h) usage; exit 0 ;;
        :) echo "option -$OPTARG needs a value" >&2; usage >&2; exit 2 ;;
        ?) echo "unknown option -$OPTARG" >&2; exit 2 ;;
    esac
done
shift $(( OPTIND - 1 ))

(( $# > 0 )) || { usage >&2; exit 2; }
[[ $days =~ ^[0-9]+$ ]] || { echo "DAYS must be a number" >&2; exit 2; }

# Set up some sample directories to work on.
for d in "$@"; do
    mkdir -p "$d/sub"
    touch "$d/keep.c" "$d/a.tmp" "$d/sub/b.tmp"
done

log() { (( verbose )) && echo "[clean] $*"; return 0; }

log "args left: $# directories, pattern=$pattern, days=$days, dry_run=$dry_run"
count=0
for dir in "$@"; do
    [[ $dir == / ]] && { echo "refusing to clean /" >&2; continue; }
    while IFS= read -r -d '' file; do
        (( ++count ))
        if (( dry_run )); then
            echo "would remove: $file"
        else
            rm -- "$file"
        fi
    done < <(find "$dir" -type f -name "$pattern" -mtime "+$(( days - 1 ))" -print0 2>/dev/null | sort -z)
    # -mtime +(-1) matches everything when days=0; good enough for a demo.
done
log "$count file(s) matched"

usage | head -n 3
rm -rf /work/build-a /work/build-b
