#!/usr/bin/env bash
# Every common here-document form, used for something small and practical.
set -euo pipefail

user=${USER:-sandbox}
version=3.4.1

# 1. Plain <<EOF: variables, $(...) and `...` are expanded.
cat <<EOF
Release notes for v$version (built by $user on $(date -u +%Y-%m-%d))
Kernel: `uname -s` / shell: ${BASH_VERSION%%(*}
Arguments given: $#
EOF

# 2. Quoted <<'EOF': the body is literal, nothing expands.
cat <<'EOF'
Literal body: $HOME stays $HOME, $(whoami) is not run, `date` neither.
A fork bomb looks like :(){ :|:& };: -- shown here as text only.
EOF

# 3. Double-quoted <<"EOF" behaves the same as single-quoted.
cat <<"EOF"
Also literal: ${version} and $((1 + 2)) and \n are printed as-is.
EOF

# 4. <<-EOF strips leading tabs, so the body can be indented with the code.
if true; then
	cat <<-EOF
		Indented with tabs in the source,
	printed flush-left. Version $version.
	EOF
fi

# 5. Two here-documents on one line, on different file descriptors.
paste -d= /dev/fd/3 /dev/fd/4 3<<KEYS 4<<VALUES
name
version
channel
KEYS
demo-app
$version
stable
VALUES

# 6. Reading two heredocs side by side in a loop.
while read -r -u 5 city && read -r -u 6 temp; do
    printf '  %-8s %3s C\n' "$city" "$temp"
done 5<<'A' 6<<'B'
Oslo
Lisbon
Cairo
A
4
18
31
B

# 7. Heredoc into a variable with read -d ''.
read -r -d '' banner <<'EOF' || true
+-----------------+
|  All done #1    |
+-----------------+
EOF
echo "$banner"

# 8. Heredoc piped onwards and counted.
lines=$(cat <<EOF | grep -c .
alpha
beta

gamma
EOF
)
echo "non-empty lines in heredoc: $lines"
