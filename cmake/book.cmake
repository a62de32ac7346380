# The book's core: attnlab compiled to WebAssembly by Debian's emscripten, from these same sources
# (CMakeLists.txt's EMSCRIPTEN branch), into attnlab-book-core.js beside the attnlab executable,
# where `attnlab book --html FILE` reads it. Not part of the default build:
#   cmake --build build --target book        (about 3 minutes on two cores, the first time)
# -O3 (Release), not -Os: the page computes 2.7 times faster (mha at d_model 768, 12 heads, 1,024
# tokens: 2.0 s instead of 5.5 s) for 8.7 MB instead of 6.3.
# emscripten's JS optimizer needs Debian's acorn: NODE_PATH=/usr/share/nodejs where node is not
# Debian's own.
find_program(ATTNLAB_EMCMAKE emcmake)
if(ATTNLAB_EMCMAKE)
  add_custom_target(book
    COMMAND ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs
            ${ATTNLAB_EMCMAKE} ${CMAKE_COMMAND} -S ${CMAKE_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/book-core
            -DCMAKE_BUILD_TYPE=Release
    COMMAND ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs
            ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR}/book-core -j2
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${CMAKE_BINARY_DIR}/book-core/attnlab-book-core.js
            $<TARGET_FILE_DIR:attnlab>/attnlab-book-core.js
    DEPENDS attnlab
    COMMENT "Building the book's core (attnlab in WebAssembly, emscripten)"
    VERBATIM USES_TERMINAL)
else()
  add_custom_target(book
    COMMAND ${CMAKE_COMMAND} -E echo "attnlab: the book needs emscripten: apt-get install emscripten"
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
endif()
