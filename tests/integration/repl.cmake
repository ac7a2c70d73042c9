# The session interpreters (images/python/repl.py, images/node/repl.mjs)
# checked by tests/repl's harnesses in the real images, started with each
# plugin's session_cmd. include()d from tests/integration/CMakeLists.txt.
# Exit 77 = skipped (no daemon or no image); CI=true turns that into a
# failure. The tree's interpreter is bind-mounted over the image's copy.
add_executable(plugin_session ${PROJECT_SOURCE_DIR}/tests/repl/plugin_session.c)
target_include_directories(plugin_session PRIVATE ${PROJECT_SOURCE_DIR}/sdk/include)
target_link_libraries(plugin_session PRIVATE ${CMAKE_DL_LIBS})

foreach(lang python python-ml javascript typescript)
  string(REPLACE "-" "_" test_name "repl_${lang}")
  add_test(NAME ${test_name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/repl/repl_test.sh ${lang}
      ${SBX_PLUGIN_BUILD_DIR} $<TARGET_FILE:plugin_session>)
  set_tests_properties(${test_name} PROPERTIES
    SKIP_RETURN_CODE 77
    TIMEOUT 300
    LABELS "integration;docker")
endforeach()
add_dependencies(plugin_session sbx_plugin_python sbx_plugin_python-ml
  sbx_plugin_javascript sbx_plugin_typescript)
