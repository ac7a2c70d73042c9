#!/usr/bin/env bash
# Builds the sandbox images, without a registry. See images/README.md.
#
#   scripts/build-images.sh [--packages-only] [image|language...]
#                           (default: every images/<image>/packages)
#
# A language names the image that serves it: its directory's name, or one
# that images/<image>/languages lists (javascript, typescript: node).
#
# Three layers, each skipped when its result exists:
#   1. the base, shared by every image: mmdebstrap makes Debian's Essential
#      set, apt and images/base/packages into a tarball that docker import
#      turns into mcp-sandbox/base:<hash of the packages and the options>
#      (also tagged mcp-sandbox/base:latest);
#   2. a language's packages: apt-get installs images/<lang>/packages in a
#      container of the base (or, when images/<lang>/parent names another
#      language, of that language's packages layer), with dpkg options from
#      images/<lang>/dpkg.cfg, and docker commit makes the result
#      mcp-sandbox/<lang>-base:<hash of the parent's id and the recipe>;
#   3. the thin top: docker build adds images/<lang>/Dockerfile (the
#      agent build/bin/sbx-agent, the language's own files) on top, giving
#      mcp-sandbox/<lang>:latest. Its context is the agent plus, when
#      images/<lang>/context.sh exists, what that hook puts there: it runs
#      as `context.sh CONTEXT_DIR CACHE_DIR`, with CACHE_DIR
#      ($SBX_IMAGE_WORK/<lang>.cache) kept between builds for downloads.
#      The hook must pin what it fetches in files of images/<lang>/,
#      because those files (not its output) go into the recipe: an
#      up-to-date check runs no hook and fetches nothing.
# The final image is current when its labels org.mcp-sandbox.recipe
# (Dockerfile, with a hook every other file of images/<lang>/ but packages,
# parent, dpkg.cfg, languages and README.md, the packages layer's id) and
# org.mcp-sandbox.agent-sha256 match. So a new agent costs only step 3.
#
# --packages-only builds steps 1 and 2 and needs no agent: scripts/setup.sh
# runs it while the C tree compiles.
#
# A language's chain (the language, then those whose parent it is) builds
# in one job; jobs run in parallel. Every stage prints a line with its
# time; on a terminal a status line shows what runs.
#
# Environment:
#   SBX_AGENT          agent binary (default build/bin/sbx-agent; installed,
#                      <prefix>/libexec/mcp-sandbox/sbx-agent)
#   SBX_IMAGE_WORK     scratch dir for tarballs and logs (default build/images;
#                      installed, ~/.cache/mcp-sandbox/images)
#   SBX_IMAGE_JOBS     chains built at once (default: number of cores)
#   SBX_DEBIAN_MIRROR  mmdebstrap MIRROR arguments, space-separated (default:
#                      the host's debian.sources on a bookworm host, else
#                      mmdebstrap's own default)

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly SUITE=bookworm
# Bump when layers must be rebuilt for a reason the recipes don't show.
readonly RECIPE_VERSION=2
readonly IMAGES_DIR=$SBX_ROOT/images
# In a checkout, the build tree's; installed (the Debian package puts this
# script in /usr/share/mcp-sandbox/scripts), the packaged agent and a
# scratch dir in the user's cache.
if [ -f "$SBX_ROOT/CMakeLists.txt" ]; then
	readonly WORK=${SBX_IMAGE_WORK:-$SBX_ROOT/build/images}
	readonly AGENT=${SBX_AGENT:-$SBX_ROOT/build/bin/sbx-agent}
else
	readonly WORK=${SBX_IMAGE_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-sandbox/images}
	readonly AGENT=${SBX_AGENT:-$(cd "$SBX_ROOT/../.." && pwd)/libexec/mcp-sandbox/sbx-agent}
fi
readonly JOBS=${SBX_IMAGE_JOBS:-$(nproc)}
readonly MERGED_USR_HOOKS=/usr/share/mmdebstrap/hooks/merged-usr

# Everything here goes into the base tag's hash.
# shellcheck disable=SC2016 # mmdebstrap hooks expand $1 themselves
MM_OPTS=(
	# Essential: yes packages, apt (which the packages layers use), and
	# --include.
	--variant=apt
	# usr-is-merged rather than usrmerge, which drags perl in.
	--hook-dir="$MERGED_USR_HOOKS"
	# These stay in the image's /etc/apt/apt.conf.d and /etc/dpkg/dpkg.cfg.d,
	# so they hold for the packages layers too.
	--aptopt='APT::Install-Recommends "false"'
	--aptopt='APT::Install-Suggests "false"'
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

# What a packages layer runs in its container: `sh -c SCRIPT sh LANG PKG...`.
# Part of every packages tag's hash. The archives apt downloads and its
# logs are deleted before the commit, so they are in no layer; the lists
# are a volume, in none either.
# shellcheck disable=SC2016 # expanded in the container
readonly PKGS_SH='set -eu
lang=$1
shift
export DEBIAN_FRONTEND=noninteractive
if [ -f /recipe/dpkg.cfg ]; then
	cp /recipe/dpkg.cfg "/etc/dpkg/dpkg.cfg.d/60mcp-sandbox-$lang"
fi
printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d
chmod 0755 /usr/sbin/policy-rc.d
apt-get install -y -o Dpkg::Use-Pty=0 "$@"
rm -f /usr/sbin/policy-rc.d
apt-get clean
rm -rf /var/log/apt /var/log/dpkg.log /var/log/alternatives.log \
	/var/cache/debconf/*-old /var/lib/dpkg/*-old /var/cache/ldconfig/aux-cache'

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

# The packages of images/$1, without comments, one per line, sorted.
pkg_list() {
	sed 's/#.*//' "$(rdir "$1")/packages" | tr -s ' \t' '\n' | sed '/^$/d' | sort -u
}

# The language whose packages layer $1's extends, or nothing for the base.
parent_of() {
	[ -f "$(rdir "$1")/parent" ] || return 0
	sed 's/#.*//' "$(rdir "$1")/parent" | tr -d ' \t\n'
}

# Recipe directories named on the command line by path (outside images/),
# by image name.
declare -A RECIPE=()

# The recipe directory of image $1.
rdir() { printf '%s' "${RECIPE[$1]:-$IMAGES_DIR/$1}"; }

# Sets IMAGE to the image directory that serves $1: a path (with a /) is
# a recipe directory of its own, whose name is the image's
# (mcp-sandbox/<name>); else $1 itself, or the image whose languages file
# lists it; $1 unchanged when none does (the check below says so).
image_of() {
	local f
	IMAGE=$1
	if [[ $1 == */* ]]; then
		[ -d "$1" ] || sbx_die "no recipe directory $1"
		IMAGE=$(basename "$(cd "$1" && pwd)")
		RECIPE[$IMAGE]=$(cd "$1" && pwd)
	elif [ ! -d "$IMAGES_DIR/$1" ]; then
		for f in "$IMAGES_DIR"/*/languages; do
			[ -f "$f" ] || continue
			if sed 's/#.*//' "$f" | tr -s ' \t' '\n' | grep -qx -- "$1"; then
				IMAGE=$(basename "$(dirname "$f")")
				return
			fi
		done
	fi
}

image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }
mb() { docker image inspect -f '{{.Size}}' "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }

base_tag() {
	local h
	h=$({
		echo "$RECIPE_VERSION $SUITE"
		printf '%s\n' "${MM_OPTS[@]}" -- "${MIRRORS[@]}" --
		pkg_list base
	} | sha256sum | cut -c1-16)
	printf 'mcp-sandbox/base:%s' "$h"
}

# The tag of the image $1's packages layer starts from.
parent_tag() {
	local p
	p=$(parent_of "$1")
	if [ -n "$p" ]; then pkgs_tag "$p"; else base_tag; fi
}

# The packages layer's tag: a hash of its parent's id and its recipe.
# Prints nothing when the parent does not exist yet.
pkgs_tag() {
	local parent_id h
	parent_id=$(image_id "$(parent_tag "$1")")
	[ -n "$parent_id" ] || return 0
	h=$({
		echo "$RECIPE_VERSION $parent_id"
		printf '%s\n' "$PKGS_SH"
		pkg_list "$1"
		[ ! -f "$(rdir "$1")/dpkg.cfg" ] || cat "$(rdir "$1")/dpkg.cfg"
	} | sha256sum | cut -c1-16)
	printf 'mcp-sandbox/%s-base:%s' "$1" "$h"
}

# What the final image's org.mcp-sandbox.recipe label must say: the hash
# of the Dockerfile, the hook's files (not Python's byte code, which a
# python3 run here may leave beside them) and the packages layer's id.
recipe() {
	local dir f
	dir=$(rdir "$1")
	{
		cat "$dir/Dockerfile"
		if [ -f "$dir/context.sh" ]; then
			while IFS= read -r -d '' f; do
				printf '%s\n' "${f#"$dir"/}"
				cat "$f"
			done < <(find "$dir" -type f ! -name packages ! -name Dockerfile ! -name README.md \
				! -name parent ! -name dpkg.cfg ! -name languages \
				! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z)
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

# Prints why $1's layers must be (re)built, or nothing when they are
# current (all of them, or with --packages-only the lower two). Cheap: a
# few inspects.
stale_reason() {
	local tag pkgs_id have
	[ -n "$(image_id "$(base_tag)")" ] || {
		echo "no base image"
		return
	}
	tag=$(pkgs_tag "$1")
	pkgs_id=$([ -z "$tag" ] || image_id "$tag")
	if [ -z "$pkgs_id" ]; then
		echo "no packages layer for this recipe"
		return
	fi
	[ "$PACKAGES_ONLY" -eq 0 ] || return 0
	have=$(labels "mcp-sandbox/$1:latest")
	if [ -z "$have" ]; then
		echo "no image"
	elif [ "${have% *}" != "$(recipe "$1" "$pkgs_id")" ]; then
		echo "Dockerfile or packages changed"
	elif [ "${have#* }" != "$AGENT_SHA" ]; then
		echo "agent changed"
	fi
}

# Progress: every job sends its lines through a FIFO to the main shell,
# which prints them whole and, on a terminal, keeps a status line below.
say() { printf '%s\n' "$*" >&"$PROGRESS_FD"; }
stage_done() { say "[$1] $2 in $(sbx_since "$3")${4:+, $4}"; }

job_failed() {
	say "[$1] FAILED while $2; last lines of $WORK/$1.log:"
	tail -n 20 "$WORK/$1.log" | sed "s/^/[$1]   /" >&"$PROGRESS_FD"
}

# Step 1, in the main shell before any job.
build_base() {
	local tag=$1 tar=$WORK/base.tar log=$WORK/base.log t
	command -v mmdebstrap >/dev/null 2>&1 ||
		sbx_die "mmdebstrap is missing: run scripts/setup.sh (or apt-get install mmdebstrap)"
	[ -d "$MERGED_USR_HOOKS" ] ||
		sbx_die "$MERGED_USR_HOOKS is missing: this mmdebstrap is too old (want >= 1.3)"
	: >"$log"
	local include=()
	[ -z "$(pkg_list base)" ] || include=(--include="$(pkg_list base | paste -sd,)")
	say "[base] debootstrapping $SUITE..."
	t=$(sbx_now)
	if ! sbx_as_root mmdebstrap "${MM_OPTS[@]}" "${include[@]}" \
		"$SUITE" "$tar" "${MIRRORS[@]}" >>"$log" 2>&1; then
		sbx_as_root rm -f "$tar"
		job_failed base "debootstrapping"
		return 1
	fi
	stage_done base "debootstrapped" "$t" "$(du -m "$tar" | cut -f1) MB"
	t=$(sbx_now)
	if ! docker import --message "mcp-sandbox base" --change "LABEL org.mcp-sandbox.base=$tag" \
		"$tar" "$tag" >>"$log" 2>&1; then
		sbx_as_root rm -f "$tar"
		job_failed base "importing"
		return 1
	fi
	sbx_as_root rm -f "$tar"
	docker tag "$tag" mcp-sandbox/base:latest
	stage_done base "imported $tag" "$t" "$(mb "$tag")"
	drop_other_tags mcp-sandbox/base "$tag"
}

# Fresh apt lists for the packages layers, once per run, in a volume every
# job's container mounts read-only.
update_lists() {
	local t log=$WORK/apt-lists.log
	LISTS=mcp-sandbox-apt-lists-$$
	t=$(sbx_now)
	sbx_log "[apt] updating the package lists..."
	docker volume create "$LISTS" >/dev/null
	if ! docker run --rm --network bridge -v "$LISTS:/var/lib/apt/lists" \
		--entrypoint apt-get "$(base_tag)" update >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		return 1
	fi
	sbx_log "[apt] lists updated in $(sbx_since "$t")"
}

# Removes the tags of repository $1 but $2 (and latest); an image a
# container still uses stays.
drop_other_tags() {
	docker images --format '{{.Repository}}:{{.Tag}}' "$1" | while read -r t; do
		[ "$t" = "$2" ] || [ "$t" = "$1:latest" ] || docker rmi "$t" >/dev/null 2>&1 || true
	done
}

# Step 2 for one language, when its layer is missing.
build_pkgs() {
	local lang=$1 log=$WORK/$1.log tag parent name t
	# A parent's layer first (a child's job may be the one to need it).
	[ -z "$(parent_of "$lang")" ] || build_pkgs "$(parent_of "$lang")" || return 1
	parent=$(parent_tag "$lang")
	tag=$(pkgs_tag "$lang")
	if [ -z "$tag" ]; then
		job_failed "$lang" "looking for its parent $parent"
		return 1
	fi
	[ -z "$(image_id "$tag")" ] || return 0
	say "[$lang] installing $(pkg_list "$lang" | wc -l) packages and what they need..."
	t=$(sbx_now)
	name=mcp-sandbox-build-$lang-$$
	docker rm -f "$name" >/dev/null 2>&1 || true
	# shellcheck disable=SC2046 # one word per package
	if ! docker run --name "$name" --network bridge \
		-v "$LISTS:/var/lib/apt/lists:ro" -v "$(rdir "$lang"):/recipe:ro" \
		--entrypoint /bin/sh "$parent" -c "$PKGS_SH" sh "$lang" $(pkg_list "$lang") \
		>>"$log" 2>&1; then
		docker rm -f "$name" >/dev/null 2>&1 || true
		job_failed "$lang" "installing its packages"
		return 1
	fi
	# The container's command is no business of the images above.
	if ! docker commit --change 'CMD ["/bin/bash"]' \
		--change "LABEL org.mcp-sandbox.base=$tag" "$name" "$tag" >>"$log" 2>&1; then
		docker rm -f "$name" >/dev/null 2>&1 || true
		job_failed "$lang" "committing its packages"
		return 1
	fi
	docker rm "$name" >/dev/null 2>&1 || true
	stage_done "$lang" "packages layer $tag" "$t" "$(mb "$tag") with the base"
	drop_other_tags "mcp-sandbox/$lang-base" "$tag"
}

# Step 3 for one language.
build_top() {
	local lang=$1 log=$WORK/$1.log final=mcp-sandbox/$1:latest pkgs ctx old_id new_id t
	pkgs=$(pkgs_tag "$lang")
	t=$(sbx_now)
	# The context holds only what the Dockerfile copies, so nothing else
	# of the tree is sent to the engine.
	ctx=$WORK/$lang.context
	rm -rf "$ctx"
	mkdir -p "$ctx"
	cp "$(rdir "$lang")/Dockerfile" "$ctx/Dockerfile"
	install -m 0700 "$AGENT" "$ctx/sbx-agent"
	if [ -f "$(rdir "$lang")/context.sh" ]; then
		if ! bash "$(rdir "$lang")/context.sh" "$ctx" "$WORK/$lang.cache" >>"$log" 2>&1; then
			rm -rf "$ctx"
			job_failed "$lang" "preparing the context (context.sh)"
			return 1
		fi
	fi
	old_id=$(image_id "$final")
	if ! docker build --force-rm --build-arg "BASE=$pkgs" \
		--label "org.mcp-sandbox.recipe=$(recipe "$lang" "$(image_id "$pkgs")")" \
		--label "org.mcp-sandbox.agent-sha256=$AGENT_SHA" \
		-t "$final" "$ctx" >>"$log" 2>&1; then
		job_failed "$lang" "building the top layer"
		return 1
	fi
	rm -rf "$ctx"
	# What the host relies on, checked the way the host runs it: an
	# image's own images/<lang>/smoke (run with the image's name) or the
	# sandbox contract.
	# shellcheck disable=SC2016 # expanded in the container
	if [ -f "$(rdir "$lang")/smoke" ]; then
		if ! bash "$(rdir "$lang")/smoke" "$final" >>"$log" 2>&1; then
			job_failed "$lang" "checking the image (smoke)"
			return 1
		fi
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
	stage_done "$lang" "top layer" "$t" "$final is $(mb "$final")"
}

# One job: a chain of languages, each one's packages, then their tops.
build_chain() {
	local lang
	for lang in "$@"; do
		: >"$WORK/$lang.log"
	done
	for lang in "$@"; do
		build_pkgs "$lang" || return 1
	done
	[ "$PACKAGES_ONLY" -eq 0 ] || return 0
	for lang in "$@"; do
		build_top "$lang" || return 1
	done
}

PACKAGES_ONLY=0
langs=()
for arg in "$@"; do
	case "$arg" in
	-h | --help) usage 0 ;;
	--packages-only) PACKAGES_ONLY=1 ;;
	-*)
		sbx_warn "unknown option $arg"
		usage 2
		;;
	*)
		image_of "$arg"
		langs+=("$IMAGE")
		;;
	esac
done
mapfile -t langs < <(printf '%s\n' ${langs[@]+"${langs[@]}"} | sed '/^$/d' | sort -u)
if [ "${#langs[@]}" -eq 0 ]; then
	for d in "$IMAGES_DIR"/*/; do
		d=$(basename "$d")
		[ "$d" != base ] && [ -f "$IMAGES_DIR/$d/packages" ] && langs+=("$d")
	done
fi
[ "${#langs[@]}" -gt 0 ] || sbx_die "no images/<lang>/packages found"
for lang in base "${langs[@]}"; do
	if [ ! -f "$(rdir "$lang")/packages" ] ||
		{ [ "$lang" != base ] && [ ! -f "$(rdir "$lang")/Dockerfile" ]; }; then
		sbx_die "no image '$lang': images/$lang/ needs a packages file and a Dockerfile"
	fi
	bad=$(pkg_list "$lang" | grep -Ev '^[a-z0-9][a-z0-9+.-]*(:[a-z0-9]+)?$' || true)
	[ -z "$bad" ] || sbx_die "images/$lang/packages: not a package name: $bad"
	p=$(parent_of "$lang")
	[ -z "$p" ] || [ -f "$(rdir "$p")/packages" ] ||
		sbx_die "images/$lang/parent names '$p', which has no images/$p/packages"
done

T0=$(sbx_now)
docker info >/dev/null 2>&1 ||
	sbx_die "no Docker engine answers (${DOCKER_HOST:-unix:///var/run/docker.sock}): start it" \
		"(sudo systemctl start docker; in a checkout: scripts/docker-up.sh)"
AGENT_SHA=
if [ "$PACKAGES_ONLY" -eq 0 ]; then
	if [ ! -f "$AGENT" ] || [ ! -x "$AGENT" ]; then
		sbx_die "agent binary $AGENT is missing: run cmake --build build first (or set SBX_AGENT)"
	fi
	if command -v readelf >/dev/null 2>&1 && readelf -l "$AGENT" 2>/dev/null | grep -q 'program interpreter'; then
		sbx_warn "$AGENT is dynamically linked; the images carry little more than libc"
	fi
	AGENT_SHA=$(sha256sum "$AGENT" | cut -d' ' -f1)
fi

mkdir -p "$WORK"
exec 9>"$WORK/.lock"
if ! flock -n 9; then
	sbx_log "waiting for another build-images.sh to finish..."
	flock 9
fi

# The progress FIFO's reader is this shell; jobs write whole lines.
fifo=$WORK/.progress.$$
rm -f "$fifo"
mkfifo "$fifo"
exec {PROGRESS_FD}<>"$fifo"
rm -f "$fifo"
LISTS=
cleanup() {
	[ -z "$LISTS" ] || docker volume rm "$LISTS" >/dev/null 2>&1 || true
}
trap cleanup EXIT

todo=()
fresh=0
for lang in "${langs[@]}"; do
	why=$(stale_reason "$lang")
	if [ -z "$why" ]; then
		sbx_log "[$lang] up to date: $([ "$PACKAGES_ONLY" -eq 1 ] && pkgs_tag "$lang" || echo "mcp-sandbox/$lang:latest")"
		fresh=$((fresh + 1))
	else
		sbx_log "[$lang] to build: $why"
		todo+=("$lang")
	fi
done

# Chains: the languages to build under the root of their parents, longest
# chains first (they take longest), then by name. A child's job builds its
# parents' packages layers when they are missing.
declare -A chain=()
for lang in "${todo[@]}"; do
	root=$lang
	while [ -n "$(parent_of "$root")" ]; do root=$(parent_of "$root"); done
	chain[$root]+="${chain[$root]:+ }$lang"
done
roots=()
while read -r _ root; do roots+=("$root"); done < <(
	for root in "${!chain[@]}"; do
		# shellcheck disable=SC2086 # a chain is a list of names
		set -- ${chain[$root]}
		echo "$((100 - $#)) $root"
	done | sort -k1,1n -k2,2
)

# Reads progress lines until the jobs in job_lang are done, printing each
# line; on a terminal, a status line with the elapsed time and what runs
# is redrawn below them every second.
tty=0
[ -t 2 ] && tty=1
status() {
	[ "$tty" -eq 1 ] || return 0
	local n=${#todo[@]} w=24 k bar
	k=$((n ? built * w / n : 0))
	printf -v bar '%*s' "$k" ''
	printf -v bar '%s%*s' "${bar// /#}" $((w - k)) ''
	printf '\r\033[K[%s] %d/%d images, %s; building %s' "${bar// /.}" "$built" "$n" \
		"$(sbx_since "$T0")" "${job_lang[*]:-nothing}" >&2
}
declare -A job_lang=()
failed=()
built=0
reap() {
	local pid line
	for pid in "${!job_lang[@]}"; do
		kill -0 "$pid" 2>/dev/null && continue
		if wait "$pid"; then
			built=$((built + $(tr + '\n' <<<"${job_lang[$pid]}" | wc -l)))
		else
			failed+=("${job_lang[$pid]}")
		fi
		unset "job_lang[$pid]"
	done
	while IFS= read -r -t 1 -u "$PROGRESS_FD" line; do
		[ "$tty" -eq 0 ] || printf '\r\033[K' >&2
		printf '%s\n' "$line" >&2
		status
		# Drain what is there, then look at the jobs again.
		IFS= read -r -t 0 -u "$PROGRESS_FD" || break
	done
	status
}

if [ "${#todo[@]}" -gt 0 ]; then
	if [ -z "$(image_id "$(base_tag)")" ]; then
		build_base "$(base_tag)" &
		job_lang[$!]=base
		while [ "${#job_lang[@]}" -gt 0 ]; do reap; done
		[ "${#failed[@]}" -eq 0 ] || sbx_die "failed: the base image"
		built=0
	fi
	need_lists=0
	for lang in "${todo[@]}"; do
		t=$(pkgs_tag "$lang")
		{ [ -n "$t" ] && [ -n "$(image_id "$t")" ]; } || need_lists=1
	done
	[ "$need_lists" -eq 0 ] || update_lists || sbx_die "apt-get update failed in the base image"
	# Legacy builder unless buildx is there: the docker CLI >= 23 refuses
	# BuildKit without it, and Debian's docker.io ships none.
	docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0

	for root in "${roots[@]}"; do
		while [ "${#job_lang[@]}" -ge "$JOBS" ]; do reap; done
		# shellcheck disable=SC2086 # a chain is a list of names
		build_chain ${chain[$root]} &
		job_lang[$!]=${chain[$root]// /+}
	done
	while [ "${#job_lang[@]}" -gt 0 ]; do reap; done
	[ "$tty" -eq 0 ] || printf '\r\033[K' >&2
fi

sbx_log "images: ${#todo[@]} to build, $fresh up to date, ${#failed[@]} failed in $(sbx_since "$T0")"
[ "${#failed[@]}" -eq 0 ] || sbx_die "failed: ${failed[*]}"
if [ "${#todo[@]}" -gt 0 ] && [ "$PACKAGES_ONLY" -eq 0 ]; then
	# Each size counts the layers below: the base is stored once, and
	# python-ml's size includes python's packages layer.
	for lang in "${langs[@]}"; do
		sbx_log "  mcp-sandbox/$lang:latest $(mb "mcp-sandbox/$lang:latest")"
	done
	sbx_log "  (each with the shared base, $(mb "$(base_tag)"), which is stored once)"
fi
