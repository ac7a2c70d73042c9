/*
 * doctor.h - can a server run here, and run safely? The checks behind
 * `mcp-sandbox doctor` (and its --json), which the server also runs at
 * start-up, logging each: sandbox.ini and the plugins, the state
 * directory, the engine (reachable, its API, the cgroup controllers it
 * enforces limits with, seccomp, the OCI runtime and the container-escape
 * fixes it carries), each language's cpu_millis against the engine's
 * CPUs, each language's image and the agent in it, the disk under the
 * engine's data root, and (`mcp-sandbox doctor` only) whether each
 * installer's registries answer through an egress proxy. A failed check
 * says how to fix it.
 */
#ifndef SBX_CLI_DOCTOR_H
#define SBX_CLI_DOCTOR_H

#include <cjson/cJSON.h>

#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "error.h"

struct docker;
struct installer;

struct doctor_env {
	const struct config *cfg;
	const struct plugin_set *plugins;
	struct docker *docker;
	/* SHA-256 (hex) of the agent images should carry, or "" when unknown
	 * (doctor_agent_sha). */
	char agent_sha[65];
	/* How this install builds an image, for the fixes: the source tree's
	 * scripts/build-images.sh from a build tree, the packaged copy
	 * (<prefix>/share/mcp-sandbox/scripts/...) from an install. */
	const char *build_images;
	/* Nonzero when the binary runs from its build tree. */
	int in_tree;
	/* The engine's description (engine_info.h) when the caller has one
	 * (a serving engine that just came up), or NULL: the doctor asks. */
	const cJSON *desc;
	/* An installer on this engine: each installer's registries are
	 * checked through an egress proxy (install.h,
	 * installer_check_registries), a warning for each that does not
	 * answer; NULL: not checked (a server's start-up). */
	struct installer *installer;
};

/* err NULL and report: [{check, status: "ok"|"warn"|"fail", detail,
 * fix?}] (taken), ok: no check failed (the server can run); a failed
 * check is part of the report, not an error. err set (out of memory):
 * no report could be made, report is NULL. */
typedef void (*doctor_cb)(const struct error *err, cJSON *report, int ok,
			  void *arg);

/* Run every check; cb runs once, from the loop (before this returns only
 * when the engine cannot even be asked). 0, or a negative errno without
 * calling cb. env is copied; what it points at is borrowed until cb. */
int doctor_run(const struct doctor_env *env, doctor_cb cb, void *arg);

/* The agent binary's SHA-256 into out ("" when it cannot be read):
 * blocking (a 1.3 MiB file), for start-up, before the loop serves. */
void doctor_agent_sha(const char *path, char out[65]);

/* The fixes a runc version lacks, among the container escapes the docs
 * name ("CVE-2024-21626 CVE-2025-31133 ..."), into buf ("" when none):
 * upstream versions compare by number; Debian's carry their backports in
 * the revision (1.1.5+ds1-1+deb12u1 has CVE-2024-21626's fix). */
void doctor_runc_missing(const char *version, char *buf, size_t size);

/* How to make lang's image, for a fix (script: the image script,
 * build-images.sh, or NULL): "<script> <lang>" when the script's recipes
 * (<script>/../../images) have one for lang (a directory of its name, or
 * one whose `languages` file lists it); "<script> DIR" saying that DIR is
 * the plugin's own recipe directory when they have none (a plugin from
 * outside, its recipe beside it); "build or pull <image>" for an image
 * that is not an mcp-sandbox/ one, or without a script. */
void doctor_image_fix(const char *script, const char *lang, const char *image,
		      char *out, size_t size);

#endif
