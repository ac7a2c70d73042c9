#!/usr/bin/env bash
# Generate config files from heredocs, feed heredocs into functions, and validate them.
set -euo pipefail

app_dir=/work/app-config
mkdir -p "$app_dir"
port=8443
workers=$(( $(nproc) * 2 ))

# Expanded heredoc written straight to a file.
cat > "$app_dir/app.env" <<EOF
APP_PORT=$port
APP_WORKERS=$workers
APP_LOG_DIR=$app_dir/logs
APP_BUILD="$(date -u +%Y%m%d)-r${RANDOM}"
EOF

# Literal heredoc (quoted delimiter) for a shell snippet that must keep its $ signs.
cat > "$app_dir/healthcheck.sh" <<"EOF"
#!/bin/sh
# Exit non-zero if the service port is not answering.
port=${APP_PORT:-8080}
echo "checking localhost:$port ..."
[ -n "$port" ] && exit 0
EOF
chmod 755 "$app_dir/healthcheck.sh"

# Append with >> and another heredoc.
cat >> "$app_dir/app.env" <<'EOF'
# Secrets are injected at deploy time; never commit them.
APP_GREETING='Hello, $USER -- welcome #1'
EOF

# A function that reads its stdin, fed by a heredoc.
validate_env() {
    local n=0 bad=0 line key
    while IFS= read -r line; do
        (( ++n ))
        [[ -z $line || $line == '#'* ]] && continue
        if [[ $line =~ ^([A-Z_][A-Z0-9_]*)=(.*)$ ]]; then
            key=${BASH_REMATCH[1]}
            printf '  line %d: %-12s ok\n' "$n" "$key"
        else
            printf '  line %d: invalid -> %s\n' "$n" "$line"
            (( ++bad ))
        fi
    done
    return $(( bad > 0 ))
}

echo "Validating generated file:"
validate_env < "$app_dir/app.env"

echo "Validating an inline sample with mistakes:"
validate_env <<EOF || echo "  -> sample has errors (as expected)"
GOOD_KEY=1
bad-key=2
ANOTHER=$port
=novalue
EOF

# Source the generated env file in a subshell and use the values.
(
    set -a; . "$app_dir/app.env"; set +a
    echo "Loaded: port=$APP_PORT workers=$APP_WORKERS greeting=[$APP_GREETING]"
    "$app_dir/healthcheck.sh"
)

ls -l "$app_dir" | awk 'NR > 1 { print "  " $1, $NF }'
rm -rf "$app_dir"
