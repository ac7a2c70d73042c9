# check_man.cmake - the man pages against the code (a unit test, cmake -P):
#   - every subcommand and option of `mcp-sandbox --help` is in
#     mcp-sandbox.1;
#   - every key of host/core/plugins/config.c's tables, and every section and key
#     of the shipped sandbox.ini, is in sandbox.ini.5;
#   - the page as built (MAN_DIR) gives the plugin ABI that `mcp-sandbox
#     --version` says (the source has @SBX_PLUGIN_ABI@, from the header);
#   - with groff installed, both pages format without a warning.
# Variables: BIN (the binary), SRC (the source tree), MAN_DIR (the build
# tree's man/).

file(READ ${SRC}/docs/man/mcp-sandbox.1 man1)
file(READ ${SRC}/docs/man/sandbox.ini.5 man5)
set(missing)

# troff's \- is a plain '-' to the reader.
string(REPLACE "\\-" "-" man1_text "${man1}")
string(REPLACE "\\-" "-" man5_text "${man5}")

execute_process(COMMAND ${BIN} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --help exited ${rc}")
endif()
# Subcommands: the first word after "mcp-sandbox " on each usage line;
# options: every --long and -x word.
# (Brackets out first: in a CMake list they would hold the separators.)
string(REGEX REPLACE "[][()|]" " " help_words "${help}")
string(REGEX MATCHALL "mcp-sandbox [a-z][a-z-]*" cmds "${help_words}")
string(REGEX MATCHALL " --?[a-z][a-z-]*" opts "${help_words}")
set(n 0)
foreach(w ${cmds} ${opts})
  string(REGEX REPLACE "^(mcp-sandbox | )" "" w "${w}")
  math(EXPR n "${n} + 1")
  # As a word in bold (.B, .BR, .BI, \fB) somewhere in the page.
  string(REGEX MATCH "(^|\n)\\.B[RI]? [^\n]*${w}( |\n|\")|\\\\fB${w}\\\\f" hit "${man1_text}")
  if(NOT hit)
    list(APPEND missing "mcp-sandbox.1: ${w} (from --help)")
  endif()
endforeach()
if(n LESS 12)
  message(FATAL_ERROR "found only ${n} subcommands and options in --help:\n${help}")
endif()

# The pages' .TH lines name the binary's version.
execute_process(COMMAND ${BIN} --version OUTPUT_VARIABLE version)
string(REGEX MATCH "^mcp-sandbox ([0-9.]+)" version "${version}")
set(version "${CMAKE_MATCH_1}")
foreach(page man1 man5)
  string(REGEX MATCH "\n\\.TH [^\n]*\"mcp-sandbox ${version}\"" hit "${${page}}")
  if(NOT hit)
    list(APPEND missing "${page}: the .TH line does not name ${version}")
  endif()
endforeach()

file(READ ${SRC}/host/core/plugins/config.c config_c)
string(REGEX MATCHALL "{\"[a-z_]+\", KT_" keys "${config_c}")
list(LENGTH keys nkeys)
if(nkeys LESS 50)
  message(FATAL_ERROR "found only ${nkeys} keys in host/core/plugins/config.c")
endif()
file(STRINGS ${SRC}/sandbox.ini ini_keys REGEX "^;?[a-z_]+ =")
file(STRINGS ${SRC}/sandbox.ini ini_sections REGEX "^\\[[a-z_-]+\\]")
list(REMOVE_DUPLICATES ini_keys)
foreach(k ${keys} ${ini_keys})
  string(REGEX REPLACE "^{\"|^;|\", KT_$| =.*$" "" k "${k}")
  # A word of its own on a bold line (.B key, .BR a ", " key).
  string(REGEX MATCH "(^|\n)\\.BR? ([^\n]*[ \"])?${k}[ \"\n]" hit "${man5_text}")
  if(NOT hit)
    list(APPEND missing "sandbox.ini.5: key ${k}")
  endif()
endforeach()
foreach(s ${ini_sections})
  string(REPLACE "[" "\\[" re "${s}")
  string(REPLACE "]" "\\]" re "${re}")
  string(REGEX MATCH "(^|\n)\\.(SH|BR?|RB) ([^\n]* )?${re}" hit "${man5_text}")
  if(NOT hit)
    list(APPEND missing "sandbox.ini.5: section ${s}")
  endif()
endforeach()
foreach(k enabled block seccomp_deny)
  string(REGEX MATCH "\n\\.B ${k}\n" hit "${man5_text}")
  if(NOT hit)
    list(APPEND missing "sandbox.ini.5: language key ${k}")
  endif()
endforeach()

execute_process(COMMAND ${BIN} --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version MATCHES "plugin ABI ([0-9]+\\.[0-9]+)\\)")
  message(FATAL_ERROR "${BIN} --version: ${version}")
endif()
set(abi ${CMAKE_MATCH_1})
file(READ ${MAN_DIR}/mcp-sandbox.1 built)
if(NOT built MATCHES "plugin ABI ${abi}\\)")
  list(APPEND missing "${MAN_DIR}/mcp-sandbox.1: plugin ABI ${abi} (from --version) in the --version example")
endif()

if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "missing from the man pages:\n  ${text}")
endif()

find_program(GROFF groff)
if(GROFF)
  foreach(page mcp-sandbox.1 sandbox.ini.5)
    execute_process(COMMAND ${GROFF} -man -Tutf8 -ww -z ${SRC}/docs/man/${page}
      ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR err)
      message(FATAL_ERROR "groff -man -ww on ${page}:\n${err}")
    endif()
  endforeach()
else()
  message(STATUS "groff not installed: the pages' formatting is not checked")
endif()
message(STATUS "man pages: ${n} subcommands and options, ${nkeys} config.c keys checked")
