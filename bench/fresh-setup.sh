#!/usr/bin/env bash
# Times command one (scripts/setup.sh) on a machine that has nothing: a
# privileged container of plain Debian 12 with this tree copied in, its
# own dockerd (started by setup.sh, as on a fresh box), its own empty image
# store and no apt, npm or build cache. Runs by hand, never in CI.
#
#   bench/fresh-setup.sh [SETUP_ARGS...]     (default: --no-demo)
#
# Prints setup.sh's own output, then its time, then the time of a second
# run with nothing changed. The tree is the working tree's tracked and
# untracked files (not ignored ones), so a change can be timed uncommitted;
# SBX_BENCH_TREE names another checkout to time instead (an older commit's
# worktree, for a before-and-after).
#
# "Plain Debian 12": the base image of scripts/build-images.sh (Debian's
# Essential set and apt) without the apt and dpkg options it adds for the
# sandbox images (no Recommends, no documentation), and with git,
# ca-certificates and mount, which a machine that cloned this tree has. Needs the
# base image (scripts/build-images.sh builds it).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -gt 0 ] || set -- --no-demo
readonly IMAGE=mcp-sandbox/bench-fresh:latest
readonly NAME=mcp-sandbox-bench-fresh-$$
readonly STORE=mcp-sandbox-bench-fresh-$$

docker image inspect mcp-sandbox/base:latest >/dev/null 2>&1 ||
	sbx_die "no mcp-sandbox/base:latest: run scripts/build-images.sh first"

cleanup() {
	docker rm -f "$NAME" >/dev/null 2>&1 || true
	docker volume rm "$STORE" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# This machine's trust settings go in too, as on every box of its kind: the
# CAs it adds (/usr/local/share/ca-certificates), npm's global npmrc and
# NODE_EXTRA_CA_CERTS.
site=$(mktemp -d)
mkdir -p "$site/ca"
cp /usr/local/share/ca-certificates/*.crt "$site/ca/" 2>/dev/null || true
[ ! -f /etc/npmrc ] || cp /etc/npmrc "$site/npmrc"
from=$({
	docker image inspect -f '{{.Id}}' mcp-sandbox/base:latest
	cat "$site"/ca/* "$site"/npmrc 2>/dev/null
} | sha256sum | cut -c1-16)
if [ "$(docker image inspect -f '{{index .Config.Labels "org.mcp-sandbox.bench-from"}}' "$IMAGE" 2>/dev/null)" != "$from" ]; then
	sbx_log "bench: making $IMAGE from mcp-sandbox/base:latest"
	docker rm -f "$NAME" >/dev/null 2>&1 || true
	docker create --name "$NAME" --network bridge --entrypoint /bin/sh mcp-sandbox/base:latest -c '
		set -eu
		rm -f /etc/apt/apt.conf.d/99mmdebstrap /etc/dpkg/dpkg.cfg.d/99mmdebstrap
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q git ca-certificates mount
		mkdir -p /usr/local/share/ca-certificates
		cp /site/ca/* /usr/local/share/ca-certificates/ 2>/dev/null || true
		update-ca-certificates
		[ ! -f /site/npmrc ] || cp /site/npmrc /etc/npmrc
		rm -rf /site
		apt-get clean
		rm -rf /var/lib/apt/lists/*' >/dev/null
	docker cp "$site" "$NAME:/site"
	docker start -a "$NAME" >&2
	docker commit --change 'CMD ["/bin/bash"]' --change "LABEL org.mcp-sandbox.bench-from=$from" \
		"$NAME" "$IMAGE" >/dev/null
	docker rm "$NAME" >/dev/null
fi
rm -rf "$site"

docker volume create "$STORE" >/dev/null
# What --privileged gives, but CAP_SYS_RESOURCE, which some VMs deny
# dockerd itself (runc then fails "unable to apply caps"), and with the
# cgroup mounts (of its own cgroup namespace) made writable for the inner
# engine.
docker run -d --name "$NAME" --network bridge --cgroupns private --cap-add ALL --cap-drop SYS_RESOURCE \
	--security-opt seccomp=unconfined --security-opt apparmor=unconfined \
	--security-opt systempaths=unconfined --device-cgroup-rule 'a *:* rwm' \
	-v "$STORE:/var/lib/docker" --entrypoint sleep "$IMAGE" infinity >/dev/null
docker exec "$NAME" sh -c 'for d in /sys/fs/cgroup/*/; do
	[ -L "${d%/}" ] || mount -o remount,bind,rw "$d"; done'
(cd "${SBX_BENCH_TREE:-$SBX_ROOT}" && git ls-files -z -co --exclude-standard | tar -c --null -T - -f -) |
	docker exec -i "$NAME" sh -c 'mkdir /src && tar -x -C /src'

sbx_log "bench: scripts/setup.sh $* in a fresh container"
t=$(sbx_now)
docker exec ${NODE_EXTRA_CA_CERTS:+-e NODE_EXTRA_CA_CERTS} "$NAME" sh -c 'cd /src && scripts/setup.sh "$@"' sh "$@"
first=$(sbx_since "$t")
t=$(sbx_now)
docker exec ${NODE_EXTRA_CA_CERTS:+-e NODE_EXTRA_CA_CERTS} "$NAME" sh -c 'cd /src && scripts/setup.sh "$@"' sh "$@" >/dev/null 2>&1
again=$(sbx_since "$t")
docker exec "$NAME" docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' >&2
docker exec "$NAME" docker system df >&2
echo "fresh-setup: setup.sh $* took $first from nothing, $again again with nothing changed"
