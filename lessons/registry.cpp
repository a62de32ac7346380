// The lessons, in teaching order. Adding a lesson: one file in lessons/ and one line here.
#include "lesson.h"

namespace attn {

extern const LessonInfo attention_lesson;  // lessons/attention.cpp
extern const LessonInfo mha_lesson;        // lessons/mha.cpp
extern const LessonInfo gqa_lesson;        // lessons/gqa.cpp
extern const LessonInfo mqa_lesson;        // lessons/mqa.cpp
extern const LessonInfo qkv_roles_lesson;  // lessons/qkv_roles.cpp
extern const LessonInfo symmetry_lesson;   // lessons/symmetry.cpp
extern const LessonInfo gate_lesson;       // lessons/gate.cpp
extern const LessonInfo mla_lesson;        // lessons/mla.cpp
extern const LessonInfo ffn_lesson;        // lessons/ffn.cpp
extern const LessonInfo gelu_lesson;       // lessons/gelu.cpp
extern const LessonInfo swiglu_lesson;     // lessons/swiglu.cpp
extern const LessonInfo kv_memory_lesson;  // lessons/kv_memory.cpp
extern const LessonInfo block_lesson;      // lessons/block.cpp

const std::vector<const LessonInfo*>& all_lessons() {
  static const std::vector<const LessonInfo*> lessons = {
      &attention_lesson,  // the prerequisite: one head
      &mha_lesson,        // section 1: multi-head attention
      &gqa_lesson,        // section 2: grouped-query attention
      &mqa_lesson,        // section 2.3: multi-query attention
      &qkv_roles_lesson,  // the conversation: what Q, K, V are
      &symmetry_lesson,   // the conversation: why initialization must be random
      &gate_lesson,       // the conversation: a fourth matrix
      &mla_lesson,        // the conversation: DeepSeek's MLA
      &ffn_lesson,        // section 3: the feed-forward network
      &gelu_lesson,       // section 3.2: the activations
      &swiglu_lesson,     // section 4: SwiGLU
      &kv_memory_lesson,  // section 3.4: the FFN as key-value memory
      &block_lesson,      // preview of the next chapter: one block
  };
  return lessons;
}

}  // namespace attn
