// The path (see course.h). The order follows the chapter and then the conversation: one head, many
// heads, heads that share keys and values, what Q/K/V do and why heads start random; the FFN and its
// activations; a whole block; then the cache: MLA, decoding, TransMLA; gating; and what training does
// to heads, ending on real language.
#include "course.h"

namespace attn {

const std::vector<CourseStop>& course_stops() {
  static const std::vector<CourseStop> stops = {
      {"attention", {"attention"}, 15, "attnlab lesson attention"},
      {"mha", {"mha"}, 20, "attnlab lesson mha"},
      {"gqa", {"gqa"}, 15, "attnlab lesson gqa"},
      {"mqa", {"mqa"}, 10, "attnlab lesson mqa"},
      {"qkv_roles", {"qkv-roles"}, 15, "attnlab lesson qkv-roles"},
      {"symmetry", {"symmetry"}, 15, "attnlab lesson symmetry"},
      {"ffn", {"ffn"}, 20, "attnlab lesson ffn"},
      {"gelu", {"gelu"}, 10, "attnlab lesson gelu"},
      {"swiglu", {"swiglu"}, 15, "attnlab lesson swiglu"},
      {"kv_memory", {"kv-memory"}, 15, "attnlab lesson kv-memory"},
      {"block", {"block"}, 20, "attnlab lesson block"},
      {"mla", {"mla"}, 25, "attnlab lesson mla"},
      {"decode", {"decode"}, 20, "attnlab lesson decode"},
      {"transmla", {"transmla"}, 20, "attnlab lesson transmla"},
      {"gate", {"gate"}, 15, "attnlab lesson gate"},
      {"induction", {"induction"}, 20, "attnlab lesson induction"},
      {"specialize", {"specialize"}, 15, "attnlab lesson specialize"},
      {"tradeoffs", {"tradeoffs"}, 20, "attnlab lesson tradeoffs"},
      {"text", {}, 20, "attnlab heads --weights text-en"},
  };
  return stops;
}

}  // namespace attn
