# A stamp of the sources the tool and the book's core are built from, written at every build:
#   cmake -DSRC=<source dir> -DOUT_H=<header> -DOUT_JS=<js> -P cmake/source_stamp.cmake
# The first 16 hex digits of SHA-256 over every file's path and SHA-256 under src/, lessons/,
# catalogs/, data/ and cmake/, and CMakeLists.txt. The native build compiles it into `attnlab book`
# (source_stamp.h), the WebAssembly build writes it into the core's JavaScript (source_stamp.js,
# through --extern-pre-js), so `attnlab book` can tell a core built from other sources (a stale one) from
# its own. Each file is rewritten only when the stamp changes, so an unchanged tree rebuilds nothing.
cmake_policy(SET CMP0009 NEW)  # do not follow symlinks
file(GLOB_RECURSE files RELATIVE ${SRC}
     ${SRC}/src/* ${SRC}/lessons/* ${SRC}/catalogs/* ${SRC}/data/* ${SRC}/cmake/* ${SRC}/CMakeLists.txt)
list(SORT files)
set(listing "")
foreach(f IN LISTS files)
  file(SHA256 ${SRC}/${f} h)
  string(APPEND listing "${f} ${h}\n")
endforeach()
string(SHA256 stamp "${listing}")
string(SUBSTRING ${stamp} 0 16 stamp)
file(WRITE ${OUT_H}.tmp "#pragma once\n// Written by cmake/source_stamp.cmake: the sources this build is made from.\n#define ATTNLAB_SOURCE_STAMP \"${stamp}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT_H}.tmp ${OUT_H})
file(WRITE ${OUT_JS}.tmp "// attnlab's sources (cmake/source_stamp.cmake)\nvar ATTNLAB_SOURCE_STAMP = \"${stamp}\";\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT_JS}.tmp ${OUT_JS})
