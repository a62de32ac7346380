# The book's WebAssembly core (see cmake/book.cmake): dependencies for em++.
# CLI11, fmt (header-only) and nlohmann are Debian's headers, reached through links to their own
# folders under /usr/include; adding /usr/include itself would put glibc's headers before
# emscripten's libc. PCRE2 is not needed (CMakeLists.txt: ATTNLAB_NO_PCRE2), nor threads.
set(ATTNLAB_WASM_INCLUDE ${CMAKE_BINARY_DIR}/wasm-include)
file(MAKE_DIRECTORY ${ATTNLAB_WASM_INCLUDE})
foreach(dir CLI fmt nlohmann)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "the book's core needs /usr/include/${dir}: scripts/install-deps")
  endif()
  if(NOT EXISTS ${ATTNLAB_WASM_INCLUDE}/${dir})
    file(CREATE_LINK /usr/include/${dir} ${ATTNLAB_WASM_INCLUDE}/${dir} SYMBOLIC)
  endif()
endforeach()
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${ATTNLAB_WASM_INCLUDE})
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${ATTNLAB_WASM_INCLUDE})
add_library(fmt::fmt-header-only INTERFACE IMPORTED)
target_include_directories(fmt::fmt-header-only INTERFACE ${ATTNLAB_WASM_INCLUDE})
target_compile_definitions(fmt::fmt-header-only INTERFACE FMT_HEADER_ONLY=1)
set(ATTNLAB_FMT_HEADER_ONLY ON CACHE BOOL "" FORCE)
set(ATTNLAB_TESTS OFF CACHE BOOL "" FORCE)
# C++ exceptions carry every refusal (UsageError) to main, as in the CLI.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
