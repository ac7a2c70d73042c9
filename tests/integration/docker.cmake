# The Docker Engine API client (host/docker/docker*.c, container.c) against
# the real daemon. include()d from tests/integration/CMakeLists.txt; the
# Docker-free half (the fake daemon, the parsers) is in tests/unit.
# Exit 77 = skipped (no daemon or no test image); CI=true turns that into a
# failure. SBX_TEST_IMAGE picks the image (default mcp-sandbox/bash:latest).
add_executable(test_docker_client ${CMAKE_CURRENT_LIST_DIR}/test_docker_client.c)
target_link_libraries(test_docker_client PRIVATE sbx_host)
add_test(NAME docker_client COMMAND test_docker_client)
set_tests_properties(docker_client PROPERTIES
  SKIP_RETURN_CODE 77
  TIMEOUT 300
  LABELS "integration;docker")
