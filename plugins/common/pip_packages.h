/*
 * pip_packages.h - the package installer of the python and python-ml
 * plugins (docs/packages.md): pip, driven by the image's
 * /opt/sbx/pkgtool.py (images/python/pkgtool.py, which the python-ml
 * image carries too), installs into a directory that runs get on
 * PYTHONPATH and session interpreters on sys.path.
 */
#ifndef SBX_PIP_PACKAGES_H
#define SBX_PIP_PACKAGES_H

static const char *const install_cmd[] = {
	"python3",    "-B", "/opt/sbx/pkgtool.py", "install", "{dir}",
	"{packages}", NULL,
};
static const char *const manifest_cmd[] = {
	"python3", "-B", "/opt/sbx/pkgtool.py", "manifest", "{dir}", NULL,
};
static const char *const registry_cmd[] = {
	"python3", "-B", "/opt/sbx/pkgtool.py", "registries", NULL,
};
static const char *const registry_env[] = {"SBX_REGISTRY={registry}", NULL};
static const char *const install_env[] = {"PIP_CERT={ca}", NULL};
static const char *const package_env[] = {"PYTHONPATH={path}", NULL};

/* The descriptor's package fields (ABI 1.4), the same in both plugins. */
#define PIP_PACKAGE_FIELDS                                                     \
	.install_cmd = install_cmd, .package_ecosystem = "pypi",               \
	.manifest_cmd = manifest_cmd, .registry_cmd = registry_cmd,            \
	.registry_env = registry_env, .install_env = install_env,              \
	.package_path = "", .package_env = package_env

#endif
