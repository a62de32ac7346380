#pragma once
// std::bit_cast for the libc++ that emscripten 3.1.6 ships (it has none): the same bits seen as
// another type of the same size. GCC and clang compile the memcpy to a plain move.
#include <cstring>
#include <type_traits>

namespace attn {

template <class To, class From>
To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>);
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace attn
