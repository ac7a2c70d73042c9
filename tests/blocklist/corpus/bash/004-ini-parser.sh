#!/usr/bin/env bash
# Minimal INI parser: sections, key=value pairs, '#' and ';' comments, quoted values.
set -euo pipefail

declare -A ini=()

parse_ini() {
    local section="default" line key value n=0
    while IFS= read -r line || [[ -n $line ]]; do
        (( ++n ))
        line="${line#"${line%%[![:space:]]*}"}"     # trim leading whitespace
        line="${line%"${line##*[![:space:]]}"}"     # trim trailing whitespace
        case $line in
            ''|'#'*|';'*) continue ;;
            '['*']')      section=${line:1:${#line}-2} ;;
            *=*)
                key=${line%%=*}; value=${line#*=}
                key=${key%% }; value=${value# }
                if [[ $value == \"*\" ]]; then
                    value=${value:1:-1}                # strip surrounding quotes
                else
                    value=${value%%[[:space:]]#*}      # drop an inline comment
                    value=${value%"${value##*[![:space:]]}"}
                fi
                ini["$section.$key"]=$value ;;
            *) echo "warning: line $n not understood: $line" >&2 ;;
        esac
    done
}

parse_ini <<'EOF'
# Application settings
name = demo-service
[server]
host = 127.0.0.1
port = 8080   # default port
motd = "Welcome! Use #help for commands; don't run $(anything) here"
[database]
; credentials live elsewhere
url = postgres://localhost:5432/app
pool_size = 10
[features]
dark_mode = true
EOF

get() { local v=${ini["$1"]-}; echo "${v:-$2}"; }

echo "Parsed ${#ini[@]} keys:"
for k in $(printf '%s\n' "${!ini[@]}" | sort); do
    printf '  %-20s = %s\n' "$k" "${ini[$k]}"
done

port=$(get server.port 80)
pool=$(get database.pool_size 1)
echo
echo "Server listens on $(get server.host 0.0.0.0):$port"
echo "Max connections per worker: $(( pool * 4 ))"
echo "Timeout (missing key, default): $(get server.timeout 30)s"
[[ $(get features.dark_mode false) == true ]] && echo "Dark mode enabled"
