# The agent inside a real container, driven through `docker run -i` by a
# scripted protocol client. include()d from tests/integration/CMakeLists.txt.
# Exit 77 = skipped (no daemon or no test image); CI=true turns that into a
# failure. $SBX_TEST_IMAGE picks the image (default mcp-sandbox/bash:latest);
# the agent under test is bind-mounted over the image's /opt/sbx/agent.
add_executable(agent_client ${CMAKE_CURRENT_LIST_DIR}/agent_client.c)
target_link_libraries(agent_client PRIVATE sbx_common)

add_test(NAME agent_integration
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/agent_test.sh $<TARGET_FILE:sbx-agent>)
set_tests_properties(agent_integration PROPERTIES
  ENVIRONMENT "AGENT_CLIENT=$<TARGET_FILE:agent_client>"
  SKIP_RETURN_CODE 77
  TIMEOUT 300
  LABELS "integration;docker")
