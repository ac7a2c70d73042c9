# Writes OUT (a header defining SBX_REVISION) from `git describe` of
# SRC: the commit, with "-dirty" when the tree has changes; "unknown"
# outside a git checkout (a source tarball). The file is rewritten only
# when the revision changed, so a build with nothing new relinks nothing.
execute_process(
  COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
set(text "#define SBX_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
