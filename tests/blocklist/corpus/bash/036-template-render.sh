#!/usr/bin/env bash
# Render {{placeholders}} in a template, with nested command substitutions in strings.
set -euo pipefail

declare -A vars=(
    [project]="lighthouse"
    [owner]="Ops Team"
    [replicas]=3
    [image]="registry.local/lighthouse:1.8.2"
)

render() {   # replaces {{name}} using the vars map; unknown keys are left visible
    local line key out
    while IFS= read -r line || [[ -n $line ]]; do
        out=""
        while [[ $line =~ ^([^{]*)\{\{[[:space:]]*([a-z_]+)[[:space:]]*\}\}(.*)$ ]]; do
            key=${BASH_REMATCH[2]}
            out+="${BASH_REMATCH[1]}${vars[$key]-<missing:$key>}"
            line=${BASH_REMATCH[3]}
        done
        printf '%s\n' "$out$line"
    done
}

render <<'TPL'
# {{project}} deployment (owned by {{owner}})
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{project}}
spec:
  replicas: {{replicas}}
  template:
    spec:
      containers:
        - name: {{ project }}
          image: {{image}}
          env:
            - name: REGION
              value: "{{region}}"
TPL

echo "---"
# Double-quoted strings with nested $(...) and legacy backticks.
tag=${vars[image]##*:}
name=${vars[image]%%:*}
echo "image name: ${name##*/}, tag: $tag, major: ${tag%%.*}"
echo "summary: $(printf '%s has %d replicas (%s)' "${vars[project]}" "${vars[replicas]}" "$(echo "total pods: $(( vars[replicas] * 2 ))")")"
echo "checksum of owner: `printf '%s' "${vars[owner]}" | md5sum | cut -c1-8`"
echo "uppercase project: $(tr '[:lower:]' '[:upper:]' <<<"${vars[project]}")"
echo "line count of this message: $(wc -l <<<"$(printf 'a\nb\nc')")"

# Indirect expansion: ${!name} looks up the variable whose name is stored in name.
color_ok=green color_warn=yellow color_fail=red
for status in ok warn fail; do
    ref="color_$status"
    printf '%-4s -> %s\n' "$status" "${!ref}"
done
echo "variables starting with color_: ${!color_@}"
