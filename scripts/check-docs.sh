#!/usr/bin/env bash
# Every source and test file is named in the docs a newcomer reads first,
# so the next capability cannot land undocumented (a unit test: ctest
# -L unit runs it; it needs bash and git, no build and no Docker).
#
#   scripts/check-docs.sh [ROOT]
#
# A file is covered when its name (e.g. `tool_execute.c`, as a whole word)
# appears in the nearest README.md of its folder or a parent folder below
# the root; for host/ and common/ docs/architecture.md counts too. The
# files: the C of agent/, common/, host/, plugins/, sdk/ and tests/ (a
# header only when no .c of its stem sits beside it), the cmake, shell,
# Python and Node scripts of tests/, the end-to-end tests and their lib/,
# bench/ and scripts/. Where that README has a heading for the file's
# folder (`### core/exec/: ...` in host/README.md, `## unit/` in
# tests/README.md), the name must be in that section: a file moved to
# another folder takes its line along. Prints each file no doc names and
# exits 1 if any.

set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
cd "$root"

if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
	mapfile -t all < <(git ls-files)
else # an unpacked tarball: what is on disk
	mapfile -t all < <(find . -path ./build\* -prune -o -path '*/node_modules' -prune \
		-o -type f -print | sed 's|^\./||')
fi

covered() { # covered FILE: the file is one this check looks at
	case $1 in
	*/README.md | */CMakeLists.txt | */package.json | */package-lock.json) return 1 ;;
	tests/fixtures/* | tests/blocklist/* | tests/fuzz/seeds/*) return 1 ;;
	agent/*.[ch] | common/*.[ch] | host/*.[ch] | plugins/*.[ch] | sdk/*.[ch]) ;;
	tests/*.[ch] | tests/*.cmake | tests/*.sh | tests/*.py | tests/*.mjs) ;;
	bench/*.mjs | bench/*.sh | scripts/*) ;;
	*) return 1 ;;
	esac
	# A header beside its .c is named with it.
	case $1 in *.h) [ ! -e "${1%.h}.c" ] || return 1 ;; esac
	return 0
}

docs_for() { # docs_for FILE: the docs that must name it
	local d=${1%/*}
	while [ "$d" != "$1" ] && [ -n "$d" ]; do
		if [ -f "$d/README.md" ]; then
			echo "$d/README.md"
			break
		fi
		[ "${d%/*}" != "$d" ] || break
		d=${d%/*}
	done
	case $1 in host/* | common/*) echo docs/architecture.md ;; esac
}

in_section() { # in_section README FILE: README names FILE under the heading
	# of FILE's folder, or has no such heading
	local dir=${1%/README.md} rel sect
	[ "$dir" != "$1" ] || dir=.
	rel=${2#"$dir"/}
	[ "${rel%/*}" != "$rel" ] || return 0 # in the README's own folder
	sect=$(awk -v h="${rel%/*}/" '
		/^#+ / { t = $0; sub(/^#+ +`?/, "", t); s = index(t, h) == 1
			 seen = seen || s; next }
		s { print }
		END { exit seen ? 0 : 2 }' "$1") || return 0
	grep -qwF -- "${2##*/}" <<<"$sect"
}

n=0
missing=0
for f in "${all[@]}"; do
	covered "$f" || continue
	n=$((n + 1))
	mapfile -t docs < <(docs_for "$f")
	if [ "${#docs[@]}" -eq 0 ]; then
		echo "$f: no README.md in its folder or above it" >&2
		missing=$((missing + 1))
	elif ! grep -qwF -- "${f##*/}" "${docs[@]}"; then
		echo "$f: not named in ${docs[*]}" >&2
		missing=$((missing + 1))
	elif ! in_section "${docs[0]}" "$f"; then
		echo "$f: not named under its folder's heading in ${docs[0]}" >&2
		missing=$((missing + 1))
	fi
done
if [ "$n" -eq 0 ]; then
	echo "check-docs: no file found under $root" >&2
	exit 1
fi
echo "check-docs: $((n - missing)) of $n files named in their folder's README"
[ "$missing" -eq 0 ]
