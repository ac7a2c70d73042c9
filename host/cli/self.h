/*
 * self.h - where this binary is, and what it finds from there: a build
 * tree (build/bin/mcp-sandbox: the source tree's sandbox.ini and scripts)
 * or an install (<prefix>/bin: <prefix>/etc, lib, libexec, share).
 */
#ifndef SBX_CLI_SELF_H
#define SBX_CLI_SELF_H

#include <stddef.h>

/* Where the plugins and the agent are, relative to the prefix (the
 * binary's directory's parent): CMake passes the directories it installs
 * them to, and a build tree has the plugins at the same place. */
#ifndef SBX_PLUGIN_INSTALL_DIR
#define SBX_PLUGIN_INSTALL_DIR "lib/mcp-sandbox/plugins"
#endif
#ifndef SBX_AGENT_INSTALL_DIR
#define SBX_AGENT_INSTALL_DIR "libexec/mcp-sandbox"
#endif

/* Directory of the running binary, for paths relative to an install or a
 * build tree (build/bin -> build/lib/mcp-sandbox/plugins). 0 or -1. */
int self_dir(char *buf, size_t size);

/* Nonzero when the binary runs from its build tree. */
int self_in_build_tree(void);

/* The agent the images should carry: beside the binary in a build tree
 * (build/bin/sbx-agent), else where an install puts it
 * (<prefix>/libexec/mcp-sandbox/sbx-agent). Returns -1 when neither
 * exists. */
int self_agent_path(char *buf, size_t size);

/* The image script (scripts/build-images.sh): the source tree's when
 * running from its build tree, else <prefix>/share/mcp-sandbox/scripts',
 * into buf (PATH_MAX bytes). 0, or -1 when there is none. */
int self_build_images(char *buf);

/* --config, else $SANDBOX_CONFIG, else the source tree's sandbox.ini when
 * running from its build tree, else <prefix>/etc/mcp-sandbox/sandbox.ini,
 * else /etc/mcp-sandbox/sandbox.ini, else built-in defaults (NULL). The
 * path is arg, buf, or a constant. */
const char *self_find_config(const char *arg, char *buf, size_t size);

#endif
