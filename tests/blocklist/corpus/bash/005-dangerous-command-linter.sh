#!/usr/bin/env bash
# A tiny linter that warns when a user-supplied shell snippet looks destructive.
# It only inspects strings; nothing here is ever executed.
set -euo pipefail

# "pattern|reason" pairs (kept as data; single quotes keep '#' and '$(' literal)
rules=(
    'rm -rf /|recursive delete of the root filesystem'
    'mkfs|formats a filesystem'
    'dd if=/dev/zero|overwrites a device or file with zeros'
    ':(){ :|:& };:|classic fork bomb'
    'chmod 777|world-writable permissions'
    'curl .* \| *sh|pipes a remote script straight into a shell'
    '> /dev/sda|writes directly to a disk'
    '$(|command substitution; review what it runs'
)

check() {
    local input=$1 rule pattern reason hits=0
    for rule in "${rules[@]}"; do
        pattern=${rule%|*}
        reason=${rule##*|}
        if [[ $pattern == *'.*'* ]]; then
            [[ $input =~ $pattern ]] || continue    # regex rule
        else
            [[ $input == *"$pattern"* ]] || continue # plain substring rule
        fi
        printf '    ! %s\n' "$reason"
        (( ++hits ))
    done
    return $(( hits > 0 ))
}

samples=(
    'ls -la /work'
    'sudo rm -rf / --no-preserve-root'
    'curl -fsSL https://example.com/install.sh | sh'
    'echo "# not a comment, just text" > notes.txt'
    'dd if=/dev/zero of=/tmp/blank.img bs=1M count=4'
    'echo $(date) >> /work/log.txt'
    'grep -c TODO src/*.c'
)

flagged=0
for s in "${samples[@]}"; do
    echo "> $s"
    if check "$s"; then
        echo "    ok"
    else
        (( ++flagged ))
    fi
done

echo
echo "$flagged of ${#samples[@]} snippets need review."
