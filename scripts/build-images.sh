#!/usr/bin/env bash
# Builds the sandbox images, without a registry. See images/README.md.
#
#   scripts/build-images.sh [lang...]     (default: every images/<lang>/packages)
#
# For each language:
#   1. mmdebstrap makes a Debian root filesystem of images/<lang>/packages
#      as a tarball under build/images/,
#   2. docker import turns it into mcp-sandbox/<lang>-base:<hash of the
#      packages and the mmdebstrap options>, and the tarball is deleted,
#   3. docker build adds images/<lang>/Dockerfile (user, /work, the agent
#      build/bin/sbx-agent) on top: mcp-sandbox/<lang>:latest. Its context
#      is the agent plus, when images/<lang>/context.sh exists, what that
#      hook puts there: it runs as `context.sh CONTEXT_DIR CACHE_DIR`, with
#      CACHE_DIR ($SBX_IMAGE_WORK/<lang>.cache) kept between builds for
#      downloads. The hook must pin what it fetches in files of
#      images/<lang>/, because those files (not its output) go into the
#      recipe: an up-to-date check runs no hook and fetches nothing.
# Steps whose result exists are skipped: the base by its tag, the final image
# by its labels org.mcp-sandbox.recipe (packages, Dockerfile, with a hook
# every other file of images/<lang>/ but README.md, base image id) and
# org.mcp-sandbox.agent-sha256. So a new agent costs only step 3.
#
# Environment:
#   SBX_AGENT          agent binary (default build/bin/sbx-agent)
#   SBX_IMAGE_WORK     scratch dir for tarballs and logs (default build/images)
#   SBX_IMAGE_JOBS     languages built at once (default: number of cores)
#   SBX_DEBIAN_MIRROR  mmdebstrap MIRROR arguments, space-separated (default:
#                      the host's debian.sources on a bookworm host, else
#                      mmdebstrap's own default, deb.debian.org)

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly SUITE=bookworm
# Bump when bases must be rebuilt for a reason the options below don't show.
readonly RECIPE_VERSION=1
readonly IMAGES_DIR=$SBX_ROOT/images
readonly WORK=${SBX_IMAGE_WORK:-$SBX_ROOT/build/images}
readonly AGENT=${SBX_AGENT:-$SBX_ROOT/build/bin/sbx-agent}
readonly JOBS=${SBX_IMAGE_JOBS:-$(nproc)}
readonly MERGED_USR_HOOKS=/usr/share/mmdebstrap/hooks/merged-usr

# Everything here goes into the base tag's hash.
# shellcheck disable=SC2016 # mmdebstrap hooks expand $1 themselves
MM_OPTS=(
	# Essential: yes packages only (no apt) plus --include.
	--variant=essential
	# usr-is-merged rather than usrmerge, which drags perl in.
	--hook-dir="$MERGED_USR_HOOKS"
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/info/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-exclude=/usr/share/lintian/*'
	# The host's resolver and name are none of the image's business.
	--customize-hook=': >"$1/etc/resolv.conf"; echo sandbox >"$1/etc/hostname"'
	# Every image: the user code runs as, uid/gid 1000 (what the host
	# mounts the /work tmpfs as; plain passwd/group lines, no adduser),
	# an empty /work it owns, and /opt/sbx for the agent.
	--customize-hook='echo "sandbox:x:1000:1000:sandbox:/work:/bin/bash" >>"$1/etc/passwd"; echo "sandbox:x:1000:" >>"$1/etc/group"; if [ -e "$1/etc/shadow" ]; then echo "sandbox:*:19000:0:99999:7:::" >>"$1/etc/shadow"; fi; if [ -e "$1/etc/gshadow" ]; then echo "sandbox:*::" >>"$1/etc/gshadow"; fi; mkdir -p "$1/work" "$1/opt/sbx"; chown 1000:1000 "$1/work"; chmod 0700 "$1/work"'
)

MIRRORS=()
if [ -n "${SBX_DEBIAN_MIRROR:-}" ]; then
	read -ra MIRRORS <<<"$SBX_DEBIAN_MIRROR"
elif [ "$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")" = "$SUITE" ] &&
	[ -f /etc/apt/sources.list.d/debian.sources ]; then
	MIRRORS=(/etc/apt/sources.list.d/debian.sources)
fi

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit "${1:-0}"
}

# The packages of a language, without comments, one per line, sorted.
pkg_list() {
	sed 's/#.*//' "$IMAGES_DIR/$1/packages" | tr -s ' \t' '\n' | sed '/^$/d' | sort -u
}

image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }

base_tag() {
	local h
	h=$({
		echo "$RECIPE_VERSION $SUITE"
		printf '%s\n' "${MM_OPTS[@]}" -- "${MIRRORS[@]}" --
		pkg_list "$1"
	} | sha256sum | cut -c1-16)
	printf 'mcp-sandbox/%s-base:%s' "$1" "$h"
}

# What the final image's org.mcp-sandbox.recipe label must say. Without a
# context hook, the hash of packages, Dockerfile and the base id, as it has
# always been; with one, the names and contents of the hook's files too.
recipe() {
	local dir=$IMAGES_DIR/$1 f
	{
		cat "$dir/packages" "$dir/Dockerfile"
		if [ -f "$dir/context.sh" ]; then
			while IFS= read -r -d '' f; do
				printf '%s\n' "${f#"$dir"/}"
				cat "$f"
			done < <(find "$dir" -type f ! -name packages ! -name Dockerfile ! -name README.md -print0 |
				LC_ALL=C sort -z)
		fi
		# Files of other images' directories that the hook copies in,
		# one path relative to images/ per line.
		if [ -f "$dir/inputs" ]; then
			while IFS= read -r f; do
				case $f in "" | "#"*) continue ;; esac
				printf '%s\n' "$f"
				cat "$IMAGES_DIR/$f"
			done <"$dir/inputs"
		fi
		echo "$2"
	} | sha256sum | cut -d' ' -f1
}

labels() {
	docker image inspect -f \
		'{{index .Config.Labels "org.mcp-sandbox.recipe"}} {{index .Config.Labels "org.mcp-sandbox.agent-sha256"}}' \
		"$1" 2>/dev/null || true
}

# Prints why mcp-sandbox/$1:latest must be (re)built, or nothing when it is
# current. Cheap: two inspects.
stale_reason() {
	local base_id have
	base_id=$(image_id "$(base_tag "$1")")
	if [ -z "$base_id" ]; then
		echo "no base image for these packages"
		return
	fi
	have=$(labels "mcp-sandbox/$1:latest")
	if [ -z "$have" ]; then
		echo "no image"
	elif [ "${have% *}" != "$(recipe "$1" "$base_id")" ]; then
		echo "packages, Dockerfile or base changed"
	elif [ "${have#* }" != "$AGENT_SHA" ]; then
		echo "agent changed"
	fi
}

job_failed() {
	sbx_log "[$1] FAILED while $2; last lines of $WORK/$1.log:"
	tail -n 20 "$WORK/$1.log" | sed "s/^/[$1]   /" >&2
}

# Builds one language; progress on stderr, command output in $WORK/$lang.log.
build_one() {
	local lang=$1 log=$WORK/$1.log t0 t base base_id tar ctx final old_id new_id
	final=mcp-sandbox/$lang:latest
	base=$(base_tag "$lang")
	t0=$(sbx_now)
	: >"$log"

	base_id=$(image_id "$base")
	if [ -z "$base_id" ]; then
		tar=$WORK/$lang-base.tar
		sbx_log "[$lang] debootstrapping $SUITE (1/3)..."
		t=$(sbx_now)
		if ! sbx_as_root mmdebstrap "${MM_OPTS[@]}" \
			--include="$(pkg_list "$lang" | paste -sd,)" \
			"$SUITE" "$tar" "${MIRRORS[@]}" >>"$log" 2>&1; then
			sbx_as_root rm -f "$tar"
			job_failed "$lang" "debootstrapping"
			return 1
		fi
		sbx_log "[$lang] debootstrapped in $(sbx_since "$t") ($(du -m "$tar" | cut -f1) MB); importing (2/3)..."
		t=$(sbx_now)
		if ! docker import --message "mcp-sandbox $lang base" \
			--change "LABEL org.mcp-sandbox.base=$base" \
			"$tar" "$base" >>"$log" 2>&1; then
			sbx_as_root rm -f "$tar"
			job_failed "$lang" "importing"
			return 1
		fi
		sbx_as_root rm -f "$tar"
		base_id=$(image_id "$base")
		sbx_log "[$lang] imported $base in $(sbx_since "$t")"
	fi

	sbx_log "[$lang] building the thin layer (3/3)..."
	t=$(sbx_now)
	# The context holds only what the Dockerfile copies, so nothing else
	# of the tree is sent to the engine.
	ctx=$WORK/$lang.context
	rm -rf "$ctx"
	mkdir -p "$ctx"
	cp "$IMAGES_DIR/$lang/Dockerfile" "$ctx/Dockerfile"
	install -m 0700 "$AGENT" "$ctx/sbx-agent"
	if [ -f "$IMAGES_DIR/$lang/context.sh" ]; then
		sbx_log "[$lang] preparing the context (context.sh)..."
		if ! bash "$IMAGES_DIR/$lang/context.sh" "$ctx" "$WORK/$lang.cache" >>"$log" 2>&1; then
			rm -rf "$ctx"
			job_failed "$lang" "preparing the context"
			return 1
		fi
	fi
	old_id=$(image_id "$final")
	if ! docker build --force-rm --build-arg "BASE=$base" \
		--label "org.mcp-sandbox.recipe=$(recipe "$lang" "$base_id")" \
		--label "org.mcp-sandbox.agent-sha256=$AGENT_SHA" \
		-t "$final" "$ctx" >>"$log" 2>&1; then
		job_failed "$lang" "building the thin layer"
		return 1
	fi
	rm -rf "$ctx"
	# What the host relies on, checked the way the host runs it: an
	# image's own images/<lang>/smoke (run with the image's name) or the
	# sandbox contract.
	if [ -f "$IMAGES_DIR/$lang/smoke" ]; then
		if ! bash "$IMAGES_DIR/$lang/smoke" "$final" >>"$log" 2>&1; then
			job_failed "$lang" "checking the image (smoke)"
			return 1
		fi
	# shellcheck disable=SC2016 # expanded in the container
	elif ! docker run --rm --read-only --network none --entrypoint /bin/sh "$final" -c \
		'[ "$(id -u sandbox):$(id -g sandbox)" = 1000:1000 ] && [ -x /opt/sbx/agent ] && [ -d /work ]' \
		>>"$log" 2>&1; then
		echo "smoke test failed: want user sandbox 1000:1000, /opt/sbx/agent, /work" >>"$log"
		job_failed "$lang" "checking the image"
		return 1
	fi

	# Drop what this build replaced; an image a container still uses stays.
	new_id=$(image_id "$final")
	if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
		docker rmi "$old_id" >/dev/null 2>&1 || true
	fi
	docker images --format '{{.Repository}}:{{.Tag}}' "mcp-sandbox/$lang-base" |
		while read -r t; do
			[ "$t" = "$base" ] || docker rmi "$t" >/dev/null 2>&1 || true
		done

	sbx_log "[$lang] thin layer in $(sbx_since "$t"); $final ready in $(sbx_since "$t0")," \
		"$(docker image inspect -f '{{.Size}}' "$final" | awk '{ printf "%.0f", $1 / 1e6 }') MB"
}

langs=()
for arg in "$@"; do
	case "$arg" in
	-h | --help) usage 0 ;;
	-*)
		sbx_warn "unknown option $arg"
		usage 2
		;;
	*) langs+=("$arg") ;;
	esac
done
if [ "${#langs[@]}" -eq 0 ]; then
	for d in "$IMAGES_DIR"/*/; do
		[ -f "$d/packages" ] && langs+=("$(basename "$d")")
	done
fi
[ "${#langs[@]}" -gt 0 ] || sbx_die "no images/<lang>/packages found"
for lang in "${langs[@]}"; do
	if [ ! -f "$IMAGES_DIR/$lang/packages" ] || [ ! -f "$IMAGES_DIR/$lang/Dockerfile" ]; then
		sbx_die "no image '$lang': images/$lang/ needs a packages file and a Dockerfile"
	fi
	bad=$(pkg_list "$lang" | grep -Ev '^[a-z0-9][a-z0-9+.-]*(:[a-z0-9]+)?$' || true)
	[ -z "$bad" ] || sbx_die "images/$lang/packages: not a package name: $bad"
done

T0=$(sbx_now)
docker info >/dev/null 2>&1 ||
	sbx_die "no Docker engine answers (${DOCKER_HOST:-unix:///var/run/docker.sock}): run scripts/docker-up.sh"
if [ ! -f "$AGENT" ] || [ ! -x "$AGENT" ]; then
	sbx_die "agent binary $AGENT is missing: run cmake --build build first"
fi
if command -v readelf >/dev/null 2>&1 && readelf -l "$AGENT" 2>/dev/null | grep -q 'program interpreter'; then
	sbx_warn "$AGENT is dynamically linked; the images carry little more than libc"
fi
AGENT_SHA=$(sha256sum "$AGENT" | cut -d' ' -f1)

mkdir -p "$WORK"
exec 9>"$WORK/.lock"
if ! flock -n 9; then
	sbx_log "waiting for another build-images.sh to finish..."
	flock 9
fi

todo=()
fresh=0
for lang in "${langs[@]}"; do
	why=$(stale_reason "$lang")
	if [ -z "$why" ]; then
		sbx_log "[$lang] up to date: mcp-sandbox/$lang:latest"
		fresh=$((fresh + 1))
	else
		sbx_log "[$lang] to build: $why"
		todo+=("$lang")
	fi
done

failed=()
if [ "${#todo[@]}" -gt 0 ]; then
	for lang in "${todo[@]}"; do
		if [ -z "$(image_id "$(base_tag "$lang")")" ]; then
			command -v mmdebstrap >/dev/null 2>&1 ||
				sbx_die "mmdebstrap is missing: run scripts/setup.sh (or apt-get install mmdebstrap)"
			[ -d "$MERGED_USR_HOOKS" ] ||
				sbx_die "$MERGED_USR_HOOKS is missing: this mmdebstrap is too old (want >= 1.3)"
		fi
	done
	# Legacy builder unless buildx is there: the docker CLI >= 23 refuses
	# BuildKit without it, and Debian's docker.io ships none.
	docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0

	declare -A job_lang=()
	for lang in "${todo[@]}"; do
		while [ "${#job_lang[@]}" -ge "$JOBS" ]; do
			wait -n -p done_pid || failed+=("${job_lang[$done_pid]}")
			unset "job_lang[$done_pid]"
		done
		build_one "$lang" &
		job_lang[$!]=$lang
	done
	while [ "${#job_lang[@]}" -gt 0 ]; do
		wait -n -p done_pid || failed+=("${job_lang[$done_pid]}")
		unset "job_lang[$done_pid]"
	done
fi

sbx_log "images: $((${#todo[@]} - ${#failed[@]})) built, $fresh up to date, ${#failed[@]} failed in $(sbx_since "$T0")"
[ "${#failed[@]}" -eq 0 ] || sbx_die "failed: ${failed[*]}"
