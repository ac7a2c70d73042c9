# install_prefixed.cmake - run by `cmake --install` and cpack (install.cmake
# sets the SBX_* variables): the files whose place or text depends on the
# prefix of this install, CMAKE_INSTALL_PREFIX here, which is not the one
# the tree was configured with when cpack installs the package's /usr.

# sandbox.ini: <prefix>/etc/mcp-sandbox, except /etc/mcp-sandbox for the
# prefix /usr (GNUInstallDirs' rule; Debian's conffile); an absolute
# CMAKE_INSTALL_SYSCONFDIR wins.
if(IS_ABSOLUTE "${SBX_SYSCONFDIR}")
  set(etc "${SBX_SYSCONFDIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND SBX_SYSCONFDIR STREQUAL "etc")
  set(etc /etc)
else()
  set(etc "${CMAKE_INSTALL_PREFIX}/${SBX_SYSCONFDIR}")
endif()
file(INSTALL "${SBX_SOURCE_DIR}/sandbox.ini" DESTINATION "${etc}/mcp-sandbox"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# pkg-config: where the header is, where plugins go, the plugin ABI.
set(prefix "${CMAKE_INSTALL_PREFIX}")
configure_file("${SBX_SOURCE_DIR}/cmake/mcp-sandbox-plugin.pc.in"
  "${SBX_BINARY_DIR}/pkgconfig/mcp-sandbox-plugin.pc" @ONLY)
configure_file("${SBX_SOURCE_DIR}/cmake/mcp-sandbox-lex.pc.in"
  "${SBX_BINARY_DIR}/pkgconfig/mcp-sandbox-lex.pc" @ONLY)
file(INSTALL "${SBX_BINARY_DIR}/pkgconfig/mcp-sandbox-plugin.pc"
  "${SBX_BINARY_DIR}/pkgconfig/mcp-sandbox-lex.pc"
  DESTINATION "${CMAKE_INSTALL_PREFIX}/share/pkgconfig"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# CMake: find_package(McpSandboxPlugin), versioned by the plugin ABI.
set(cmakedir "${CMAKE_INSTALL_PREFIX}/${SBX_LIBDIR}/cmake/McpSandboxPlugin")
file(RELATIVE_PATH SBX_CONFIG_TO_PREFIX "${cmakedir}" "${CMAKE_INSTALL_PREFIX}")
configure_file("${SBX_SOURCE_DIR}/cmake/McpSandboxPluginConfig.cmake.in"
  "${SBX_BINARY_DIR}/cmake-package/McpSandboxPluginConfig.cmake" @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(
  "${SBX_BINARY_DIR}/cmake-package/McpSandboxPluginConfigVersion.cmake"
  VERSION "${SBX_ABI}" COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
file(INSTALL "${SBX_BINARY_DIR}/cmake-package/McpSandboxPluginConfig.cmake"
  "${SBX_BINARY_DIR}/cmake-package/McpSandboxPluginConfigVersion.cmake"
  DESTINATION "${cmakedir}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
