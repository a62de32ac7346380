# The book's core: attnlab compiled to WebAssembly by Debian's emscripten, from these same sources
# (CMakeLists.txt's EMSCRIPTEN branch), into attnlab-book-core.js beside the attnlab executable,
# where `attnlab book --html FILE` reads it. Not part of the default build:
#   cmake --build build --target book        (about 4 minutes on two cores, the first time)
# emscripten's JS optimizer needs Debian's acorn: NODE_PATH=/usr/share/nodejs where node is not
# Debian's own.
find_program(ATTNLAB_EMCMAKE emcmake)
if(ATTNLAB_EMCMAKE)
  add_custom_target(book
    COMMAND ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs
            ${ATTNLAB_EMCMAKE} ${CMAKE_COMMAND} -S ${CMAKE_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/book-core
            -DCMAKE_BUILD_TYPE=MinSizeRel
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
