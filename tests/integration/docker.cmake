# The Docker Engine API client (docker.c, container.c) against a scripted
# fake daemon and, when one answers, the real daemon. include()d from
# tests/integration/CMakeLists.txt.
# Exit 77 = skipped (no daemon or no test image); CI=true turns that into a
# failure. SBX_TEST_IMAGE picks the image (default mcp-sandbox/bash:latest).
add_executable(test_docker_client
  ${CMAKE_CURRENT_LIST_DIR}/test_docker_client.c
  ${PROJECT_SOURCE_DIR}/host/engine/docker.c
  ${PROJECT_SOURCE_DIR}/host/engine/container.c
  ${PROJECT_SOURCE_DIR}/host/util/log.c)
target_link_libraries(test_docker_client PRIVATE
  PkgConfig::UV PkgConfig::CURL PkgConfig::CJSON)
add_test(NAME docker_client COMMAND test_docker_client)
set_tests_properties(docker_client PROPERTIES
  SKIP_RETURN_CODE 77
  TIMEOUT 300
  LABELS "integration;docker")
