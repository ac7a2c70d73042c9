# install.cmake - the install rules of everything that is not a target,
# and the man pages. The targets install themselves: the binary
# (host/), the plugins (plugins/), the agent (agent/). The layout, with
# the Debian package's prefix /usr (DEVELOPERS.md, "The Debian package"):
#
#   /usr/bin/mcp-sandbox
#   /usr/lib/mcp-sandbox/plugins/*.so         SBX_PLUGIN_INSTALL_DIR
#   /usr/libexec/mcp-sandbox/sbx-agent        SBX_AGENT_INSTALL_DIR
#   /etc/mcp-sandbox/sandbox.ini              <prefix>/etc/... for another prefix
#   /usr/include/mcp-sandbox/plugin.h         the plugin SDK: header,
#   /usr/share/pkgconfig/mcp-sandbox-plugin.pc  pkg-config file,
#   /usr/lib/cmake/McpSandboxPlugin/          CMake package,
#   /usr/share/mcp-sandbox/sdk/               README, examples,
#   /usr/share/mcp-sandbox/docs/              the guide and every doc it names
#   /usr/share/mcp-sandbox/images/            the image recipes and the
#   /usr/share/mcp-sandbox/scripts/           script that builds them
#   /usr/share/man/man1/mcp-sandbox.1.gz, man5/sandbox.ini.5.gz
#   /usr/share/doc/mcp-sandbox/copyright
#
# host/cli/self.c finds the plugins and the agent from <prefix>/bin, and
# the configuration in <prefix>/etc/mcp-sandbox or /etc/mcp-sandbox.

# Man pages: troff in docs/man, gzipped at build time (Debian policy).
# @SBX_PLUGIN_ABI@ in them becomes the header's ABI (configure_file: an
# ABI bump, which configures again, updates the pages).
find_program(SBX_GZIP gzip REQUIRED)
set(SBX_MAN_PAGES mcp-sandbox.1 sandbox.ini.5)
set(SBX_MAN_GZ)
foreach(page ${SBX_MAN_PAGES})
  set(src ${CMAKE_BINARY_DIR}/man/${page})
  configure_file(${PROJECT_SOURCE_DIR}/docs/man/${page} ${src} @ONLY)
  set(gz ${CMAKE_BINARY_DIR}/man/${page}.gz)
  # -n: no name or time stamp in the header, so a rebuild is identical.
  add_custom_command(OUTPUT ${gz}
    COMMAND ${SBX_GZIP} -9 -n -c ${src} > ${gz}
    DEPENDS ${src}
    COMMENT "Compressing the man page ${page}")
  list(APPEND SBX_MAN_GZ ${gz})
  string(REGEX REPLACE ".*\\.([1-9])$" "\\1" section ${page})
  install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(sbx_man ALL DEPENDS ${SBX_MAN_GZ})

# sandbox.ini and the pkg-config file depend on the prefix of the install
# (cpack installs the package's /usr from a tree configured for
# /usr/local), so a script decides at install time.
install(CODE "
  set(SBX_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(SBX_BINARY_DIR \"${CMAKE_BINARY_DIR}\")
  set(SBX_SYSCONFDIR \"${CMAKE_INSTALL_SYSCONFDIR}\")
  set(SBX_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(SBX_PLUGIN_INSTALL_DIR \"${SBX_PLUGIN_INSTALL_DIR}\")
  set(SBX_VERSION \"${PROJECT_VERSION}\")
  set(SBX_ABI \"${SBX_PLUGIN_ABI}\")
  set(SBX_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/install_prefixed.cmake)

# The plugin SDK: the one header a plugin includes, and what its author
# reads. plugin-sdk.md goes to share/mcp-sandbox/docs so that the README's
# link (../docs/plugin-sdk.md) holds.
install(FILES sdk/include/mcp-sandbox/plugin.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mcp-sandbox)
install(FILES sdk/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/sdk)
install(FILES sdk/example/perl.c
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/sdk/example)
install(DIRECTORY sdk/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/sdk/examples)
# The guide and every document it names (docs/NAME.md), and those name
# in turn: all of docs/*.md, so no reference in them is dead.
file(GLOB SBX_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${SBX_DOCS} DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/docs)

# The image recipes and the script that builds them, laid out as in the
# tree (scripts/lib.sh finds the root as scripts/..):
#   SBX_AGENT=/usr/libexec/mcp-sandbox/sbx-agent SBX_IMAGE_WORK=DIR \
#     /usr/share/mcp-sandbox/scripts/build-images.sh
# Python's byte code is a build output, not a recipe: left out should a
# python3 run on this machine have written some beside the sources.
install(DIRECTORY images/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/images
  USE_SOURCE_PERMISSIONS
  PATTERN "__pycache__" EXCLUDE
  PATTERN "*.pyc" EXCLUDE)
install(PROGRAMS scripts/build-images.sh
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/scripts)
install(FILES scripts/lib.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/mcp-sandbox/scripts)

install(FILES cmake/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
