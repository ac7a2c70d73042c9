# check_kit.cmake - `mcp-sandbox check-plugin` against plugins whose
# verdicts are known (a unit test, cmake -P; no engine):
#   - each built-in plugin passes every check;
#   - each broken fixture fails with the reason that fits it, and the
#     kit's exit status is 1.
# Variables: BIN (the binary), PLUGINS (the built-in plugins' directory),
# FIXTURES (tests/fixture-plugins in the build tree), SANITIZED (an
# ASan/UBSan build).

set(failures)

function(kit file want_rc)
  execute_process(COMMAND ${BIN} check-plugin ${file}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL want_rc)
    list(APPEND failures "${file}: exit ${rc}, want ${want_rc}:\n${out}${err}")
  endif()
  foreach(line ${ARGN})
    string(FIND "${out}" "${line}" at)
    if(at EQUAL -1)
      list(APPEND failures "${file}: no line '${line}' in:\n${out}")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

file(GLOB builtin ${PLUGINS}/*.so)
list(LENGTH builtin n)
if(n LESS 7)
  message(FATAL_ERROR "${n} plugins in ${PLUGINS}, want the 7 built-in ones")
endif()
foreach(so ${builtin})
  kit(${so} 0 "pass  load" "pass  name" "pass  policy" "pass  lex_mask"
      "pass  blocklist" " 0 failed")
endforeach()

kit(${FIXTURES}/bad_abi.so 1 "FAIL  load                   ABI 99.0, the host supports 1.x")
kit(${FIXTURES}/short_struct.so 1 "FAIL  load                   descriptor struct_size is smaller than its ABI minor's")
kit(${FIXTURES}/no_session_cmd.so 1 "FAIL  load                   session_request without a session_cmd")
kit(${FIXTURES}/bad_name.so 1 "FAIL  load                   name must match")
# A built-in language's name, or an alias of one: the server would refuse
# the plugin, so the kit fails it.
kit(${FIXTURES}/shadow/shadow_python.so 1 "FAIL  name                   'python' is a name of the built-in python plugin")
kit(${FIXTURES}/shadow/shadow_alias.so 1 "FAIL  name                   'py' is a name of the built-in python plugin")
kit(${FIXTURES}/init_fails.so 1 "its init hook failed: the runtime is not installed")
if(SANITIZED)
  # Under ASan the reads that catch a foreign buffer and the NULL
  # dereference end in ASan's own report: the checks still fail.
  kit(${FIXTURES}/bad_hooks.so 1 "FAIL  prepare_code" "FAIL  session_request"
      "FAIL  lex_mask               NUL bytes input: byte 0 is neither the code's nor a space"
      "pass  blocklist")
else()
  kit(${FIXTURES}/bad_hooks.so 1
      "FAIL  prepare_code           empty input: handed back memory not from host->alloc"
      "FAIL  session_request        Segmentation fault on empty input"
      "FAIL  lex_mask               NUL bytes input: byte 0 is neither the code's nor a space"
      "pass  blocklist")
endif()

# A safe plugin made unsafe: writable by everyone.
set(tmp ${CMAKE_CURRENT_BINARY_DIR}/check-kit-tmp)
file(REMOVE_RECURSE ${tmp})
file(MAKE_DIRECTORY ${tmp})
file(COPY ${FIXTURES}/perl.so DESTINATION ${tmp}
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  WORLD_READ WORLD_WRITE)
kit(${tmp}/perl.so 1 "FAIL  file                   the file is not safe: every user may write it")
file(REMOVE_RECURSE ${tmp})

if(failures)
  string(REPLACE ";" "\n" failures "${failures}")
  message(FATAL_ERROR "check-plugin:\n${failures}")
endif()
