#!/usr/bin/env bash
# A tour of bash string manipulation and printf formatting.
set -euo pipefail

name="  Grace Brewster Hopper  "
trimmed=${name#"${name%%[![:space:]]*}"}
trimmed=${trimmed%"${trimmed##*[![:space:]]}"}
echo "trimmed:   [$trimmed] (length ${#trimmed})"
echo "upper:     ${trimmed^^}"
echo "lower:     ${trimmed,,}"
echo "swapcase:  ${trimmed~~}"
echo "first:     ${trimmed%% *}"
echo "last:      ${trimmed##* }"
echo "initials:  $(for w in $trimmed; do printf '%s.' "${w:0:1}"; done)"
echo "replace:   ${trimmed// /_}"
echo "substring: ${trimmed:6:8}"

file="/var/log/nginx/access.log.2.gz"
echo
echo "path:      $file"
echo "basename:  ${file##*/}"
echo "dirname:   ${file%/*}"
echo "stem:      ${file##*/}" | sed 's/\..*//'
echo "ext:       ${file##*.}"
echo "no .gz:    ${file%.gz}"

echo
echo "ANSI-C strings:"
tab=$'\t' nl=$'\n'
printf '  %s\n' $'col1\tcol2\tcol3'
printf '  quote: %s\n' $'it\'s "quoted"'
printf '  unicode: %s\n' $'caf\u00e9 \u2713 \u03bb'
printf '  bell-free escape: %q\n' "a${tab}b${nl}c"

echo
echo "printf table:"
printf '%-12s|%8s|%8s\n' "item" "qty" "price"
printf '%s\n' "------------+--------+--------"
while IFS=: read -r item qty price; do
    printf '%-12.12s|%8d|%8.2f\n' "$item" "$qty" "$price"
done <<<"$(printf '%s\n' 'coffee beans:2:14.5' 'very long product name:1:3' 'milk:12:0.99')"

echo
echo "Padding and numbers:"
printf '  zero-padded: %05d\n' 42
printf '  hex/oct:     %x %o %#x\n' 255 8 3054
printf '  sci:         %.3e\n' 123456.789
printf '  percent:     %d%%\n' 75
printf -v stamp '%(%Y-%m-%d)T' 0
echo "  epoch date:  $stamp"

echo
echo "Centering text:"
center() { local w=$1 s=$2; local pad=$(( (w - ${#s}) / 2 )); printf '|%*s%s%*s|\n' $pad '' "$s" $(( w - ${#s} - pad )) ''; }
center 30 "Report"
center 30 "Quarterly numbers"
