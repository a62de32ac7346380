// The lessons, in teaching order. Adding a lesson: one file in lessons/ and one line here.
#include "lessons/lesson.h"

namespace attn {

extern const LessonInfo attention_lesson;  // lessons/attention.cpp
extern const LessonInfo mha_lesson;        // lessons/mha.cpp
extern const LessonInfo ffn_lesson;        // lessons/ffn.cpp
extern const LessonInfo gelu_lesson;       // lessons/gelu.cpp
extern const LessonInfo swiglu_lesson;     // lessons/swiglu.cpp
extern const LessonInfo kv_memory_lesson;  // lessons/kv_memory.cpp

const std::vector<const LessonInfo*>& all_lessons() {
  static const std::vector<const LessonInfo*> lessons = {
      &attention_lesson,
      &mha_lesson,
      &ffn_lesson,
      &gelu_lesson,
      &swiglu_lesson,
      &kv_memory_lesson,
  };
  return lessons;
}

}  // namespace attn
