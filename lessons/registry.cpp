// The lessons, in teaching order. Adding a lesson: one folder in lessons/ (NAME.cpp defining
// `extern const LessonInfo NAME_lesson`, beside its catalogs) and one line in this list.
#include "lesson.h"

#define ATTNLAB_LESSONS(X)                                                  \
  X(attention_lesson) /* the prerequisite: one head */                      \
  X(mha_lesson)       /* section 1: multi-head attention */                 \
  X(gqa_lesson)       /* section 2: grouped-query attention */              \
  X(mqa_lesson)       /* section 2.3: multi-query attention */              \
  X(qkv_roles_lesson) /* the conversation: what Q, K, V are */              \
  X(symmetry_lesson)  /* the conversation: why initialization is random */  \
  X(specialize_lesson) /* section 1.4: heads differentiated by training */  \
  X(induction_lesson) /* section 1.4: heads that learn (a trained model) */ \
  X(gate_lesson)      /* the conversation: a fourth matrix */               \
  X(mla_lesson)       /* the conversation: DeepSeek's MLA */                \
  X(transmla_lesson)  /* the conversation: GQA models turned into MLA */    \
  X(decode_lesson)    /* the conversation: decoding with a KV cache */     \
  X(ffn_lesson)       /* section 3: the feed-forward network */             \
  X(gelu_lesson)      /* section 3.2: the activations */                    \
  X(swiglu_lesson)    /* section 4: SwiGLU */                               \
  X(tradeoffs_lesson) /* sections 2 and 4, the conversation: the trade-offs trained */ \
  X(kv_memory_lesson) /* section 3.4: the FFN as key-value memory */        \
  X(block_lesson)     /* preview of the next chapter: one block */

namespace attn {

#define ATTNLAB_DECLARE(lesson) extern const LessonInfo lesson;
ATTNLAB_LESSONS(ATTNLAB_DECLARE)
#undef ATTNLAB_DECLARE

const std::vector<const LessonInfo*>& all_lessons() {
#define ATTNLAB_ADDRESS(lesson) &lesson,
  static const std::vector<const LessonInfo*> lessons = {ATTNLAB_LESSONS(ATTNLAB_ADDRESS)};
#undef ATTNLAB_ADDRESS
  return lessons;
}

}  // namespace attn
