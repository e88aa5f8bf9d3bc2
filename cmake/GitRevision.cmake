# Run at build time (cmake -P): writes OUT with the project's git revision, only when it changed,
# so results can name the code that produced them.
execute_process(COMMAND git -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE rev
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rev)
  set(rev "unknown")
endif()
if(dirty)
  set(rev "${rev}-dirty")
endif()
set(text "#pragma once\n#define BB_GIT_REVISION \"${rev}\"\n")
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
write_if_changed(${OUT} "${text}")
