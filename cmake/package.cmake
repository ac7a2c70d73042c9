# package.cmake - the Debian package, built by cpack from a built tree:
#
#   cmake --build build --target package          # build/mcp-sandbox_*.deb
#   cpack --config build/CPackConfig.cmake -B DIR  # the same, into DIR
#
# One binary package with the layout of install.cmake under /usr and
# /etc. DEVELOPERS.md ("The Debian package") lists the decisions.

set(SBX_DEB_MAINTAINER
  "mcp-sandbox maintainers <maintainers@users.noreply.a-seed-0afc0003.example>"
  CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mcp-sandbox)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${SBX_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "code sandbox for AI assistants: an MCP server running code in Docker")
# The long description; cpack puts the summary above it and formats the
# lines for the control file (an empty line becomes " .").
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "mcp-sandbox is a Model Context Protocol server on stdio. An MCP client
(Claude Code, the MCP Inspector, any other) asks it to run Python, bash,
JavaScript, TypeScript, Go or Rust code; the code runs in a hardened,
network-less Docker container from a warm pool, and the exit status,
output and files come back. Languages are plugins (shared objects built
against the SDK in this package).

It needs a Docker engine (local, or remote through DOCKER_HOST) and the
sandbox images, built from the recipes in /usr/share/mcp-sandbox/images;
mcp-sandbox doctor checks both.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# mcp-sandbox_<version>_<arch>.deb, the architecture from dpkg.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)

# Depends from the ELF files' libraries, by dpkg-shlibdeps (dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# An engine, but not a dependency: the server also works with a remote
# engine (DOCKER_HOST) or another machine's socket, and Docker's own
# packages (docker-ce) are not in Debian's archive.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "docker.io | docker-ce")
# What /usr/share/mcp-sandbox/scripts/build-images.sh runs.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "mmdebstrap")

# The files go to /usr, and sandbox.ini to /etc: install.cmake's rule needs
# the install to run with the prefix /usr and DESTDIR pointing into cpack's
# staging directory, which is what CPACK_SET_DESTDIR does.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# sandbox.ini is the administrator's: dpkg keeps their changes on upgrade.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Strips the binary and the plugins (their targets' install rules); the
# agent is installed unstripped on purpose (agent/CMakeLists.txt).
set(CPACK_STRIP_FILES ON)

include(CPack)
