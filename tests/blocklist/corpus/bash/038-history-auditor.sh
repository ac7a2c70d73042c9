#!/usr/bin/env bash
# Audit a (sample) shell history file and classify each command by risk.
# The history below is fixture data: it is read and matched, never executed.
set -euo pipefail

hist=/work/sample_history
cat > "$hist" <<'EOF'
ls -la
cd /var/www && git pull
sudo rm -rf /
chmod 777 /var/www/uploads
curl -s http://example.com/install.sh | sh
cat /etc/passwd
cat /proc/1/environ | tr '\0' '\n'
docker run -v /var/run/docker.sock:/var/run/docker.sock alpine
:(){ :|:& };:
mkfs.ext4 /dev/sdb1
dd if=/dev/zero of=/dev/sda bs=1M
grep -rn "TODO" src/ # find leftovers
mount -o remount,rw /
tar czf backup.tgz ~/projects
echo 'rm -rf / is a joke, do not type it'
EOF

classify() {
    local cmd=$1
    # Strip a leading "sudo " and remember it (note: '#' inside ${...} is not a comment).
    local priv=""
    [[ $cmd == sudo\ * ]] && { priv=" (with sudo)"; cmd=${cmd#sudo }; }
    case $cmd in
        "echo "*|"printf "*)                     echo "low|prints text only" ;;
        "rm -rf /"|"rm -rf / "*|"rm -rf /*")     echo "critical|deletes the root filesystem$priv" ;;
        ':(){ :|:& };:')                         echo "critical|fork bomb exhausts process table" ;;
        mkfs*|"dd if="*"of=/dev/"*)              echo "critical|overwrites a block device" ;;
        *"| sh"|*"| bash"|*"|sh")                echo "high|runs a downloaded script unseen" ;;
        *docker.sock*)                           echo "high|hands out control of the Docker daemon" ;;
        "chmod 777 "*)                           echo "medium|makes files world-writable" ;;
        mount*)                                  echo "medium|changes mounted filesystems" ;;
        *"/etc/passwd"*|*"/etc/shadow"*)         echo "medium|reads account databases" ;;
        *"/proc/"[0-9]*"/environ"*)              echo "medium|reads another process's environment" ;;
        *)                                       echo "low|routine$priv" ;;
    esac
}

declare -A tally=()
n=0
while IFS= read -r line; do
    (( ++n ))
    result=$(classify "$line")
    level=${result%%|*} reason=${result#*|}
    tally[$level]=$(( ${tally[$level]:-0} + 1 ))
    printf '%3d %-10s %-50.50s %s\n' "$n" "[$level]" "$line" "$reason"
done < "$hist"

echo
echo "Summary:"
for level in critical high medium low; do
    printf '  %-8s %2d\n' "$level" "${tally[$level]:-0}"
done
if (( ${tally[critical]:-0} > 0 )); then
    echo "Review needed: ${tally[critical]} critical command(s) found in ${hist##*/}."
fi
rm -f "$hist"
