# check_guide.cmake - the plugin guide's code against the SDK (a unit
# test, cmake -P): every ```c block of docs/plugin-sdk.md and
# docs/plugin-abi.md compiles on its own into a plugin with the header of
# the tree (-Wall -Wextra -Werror, -z defs: no host symbol), and each that
# defines an entry point loads and passes `mcp-sandbox check-plugin`.
# Variables: BIN (the binary), SRC (the source tree), CC (the compiler),
# OUT (a scratch directory).

cmake_minimum_required(VERSION 3.18)
set(failures)
set(n 0)
set(more TRUE)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
foreach(doc docs/plugin-sdk.md docs/plugin-abi.md)
  file(READ ${SRC}/${doc} text)
  # Block by block, from "```c" to the next "```" (not as a CMake list,
  # which would split C at its semicolons).
  set(more TRUE)
  while(more)
    string(FIND "${text}" "```c\n" start)
    if(start EQUAL -1)
      break()
    endif()
    math(EXPR start "${start} + 5")
    string(SUBSTRING "${text}" ${start} -1 text)
    string(FIND "${text}" "```" end)
    if(end EQUAL -1)
      list(APPEND failures "${doc}: a C block without its end")
      break()
    endif()
    string(SUBSTRING "${text}" 0 ${end} code)
    math(EXPR n "${n} + 1")
    set(c ${OUT}/block${n}.c)
    file(WRITE ${c} "${code}")
    execute_process(COMMAND ${CC} -shared -fPIC -fvisibility=hidden -Wall
      -Wextra -Werror -Wl,-z,defs -I${SRC}/sdk/include -o ${OUT}/block${n}.so ${c}
      OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      list(APPEND failures "${doc}, block ${n} does not compile:\n${err}")
    elseif(code MATCHES "SBX_PLUGIN_DEFINE|sbx_plugin_entry")
      execute_process(COMMAND ${BIN} check-plugin ${OUT}/block${n}.so
        OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        list(APPEND failures "${doc}, block ${n}: check-plugin:\n${out}${err}")
      endif()
    endif()
  endwhile()
endforeach()
if(n LESS 2)
  list(APPEND failures "only ${n} C blocks found in the guide")
endif()
file(REMOVE_RECURSE ${OUT})
if(failures)
  string(REPLACE ";" "\n" failures "${failures}")
  message(FATAL_ERROR "${failures}")
endif()
