# check_guide.cmake - the plugin guide's code against the SDK (a unit
# test, cmake -P): every ```c block of docs/plugin-sdk.md and
# docs/plugin-abi.md compiles on its own into a plugin with the header of
# the tree (-Wall -Wextra -Werror, -z defs: no host symbol), and each that
# defines an entry point loads and passes `mcp-sandbox check-plugin`; the
# layout table of docs/plugin-abi.md is the header's.
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
# docs/plugin-abi.md's layout table says what the header's asserts pin:
# each "| 1.N | `field` | offset |" row against "offsetof(struct
# sbx_plugin, field) == offset" in mcp-sandbox/plugin.h.
file(READ ${SRC}/docs/plugin-abi.md abi)
file(READ ${SRC}/sdk/include/mcp-sandbox/plugin.h header)
string(REGEX MATCHALL "\\| 1\\.[0-9]+ \\| `[a-z_]+` \\| [0-9]+ \\|" rows "${abi}")
list(LENGTH rows nrows)
if(nrows LESS 8)
  list(APPEND failures "docs/plugin-abi.md: ${nrows} rows in the layout table, want one per minor")
endif()
foreach(row ${rows})
  string(REGEX REPLACE ".*`([a-z_]+)` \\| ([0-9]+) .*" "\\1" field "${row}")
  string(REGEX REPLACE ".*`([a-z_]+)` \\| ([0-9]+) .*" "\\2" off "${row}")
  string(FIND "${header}" "offsetof(struct sbx_plugin, ${field}) == ${off}" at)
  if(at EQUAL -1)
    list(APPEND failures "docs/plugin-abi.md: ${field} at ${off}, which the header does not assert")
  endif()
endforeach()

if(n LESS 2)
  list(APPEND failures "only ${n} C blocks found in the guide")
endif()
file(REMOVE_RECURSE ${OUT})
if(failures)
  string(REPLACE ";" "\n" failures "${failures}")
  message(FATAL_ERROR "${failures}")
endif()
