/*
 * npm_packages.h - the package installer of the javascript and typescript
 * plugins, which share the node image (docs/packages.md): npm installs
 * into a directory whose node_modules runs get as NODE_PATH
 * (images/node/require.mjs resolves ES imports from it too).
 */
#ifndef SBX_NPM_PACKAGES_H
#define SBX_NPM_PACKAGES_H

static const char *const install_cmd[] = {
	"npm",
	"install",
	"--prefix",
	"{dir}",
	"--no-audit",
	"--no-fund",
	"--no-update-notifier",
	"--loglevel=warn",
	"--",
	"{packages}",
	NULL,
};
static const char *const manifest_cmd[] = {
	"node", "/opt/sbx/pkgtool.mjs", "manifest", "{dir}", NULL,
};
static const char *const registry_cmd[] = {
	"npm", "config", "get", "registry", NULL,
};
static const char *const registry_env[] = {"npm_config_registry={registry}",
					   NULL};
/* NODE_USE_ENV_PROXY: an install script's fetch() and http requests go
 * through the egress proxy too (which refuses what is not a registry and
 * logs it), rather than failing unseen. */
static const char *const install_env[] = {
	"npm_config_cafile={ca}",
	"npm_config_cache=/work/.npm",
	"NODE_USE_ENV_PROXY=1",
	NULL,
};
static const char *const package_env[] = {"NODE_PATH={path}", NULL};

#endif
