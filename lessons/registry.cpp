// The lessons, in teaching order. Adding a lesson: one file in lessons/ and one line here.
#include "lessons/lesson.h"

namespace attn {

extern const LessonInfo attention_lesson;  // lessons/attention.cpp
extern const LessonInfo mha_lesson;        // lessons/mha.cpp
extern const LessonInfo qkv_roles_lesson;  // lessons/qkv_roles.cpp
extern const LessonInfo gate_lesson;       // lessons/gate.cpp
extern const LessonInfo symmetry_lesson;   // lessons/symmetry.cpp
extern const LessonInfo block_lesson;      // lessons/block.cpp

const std::vector<const LessonInfo*>& all_lessons() {
  static const std::vector<const LessonInfo*> lessons = {
      &attention_lesson,
      &mha_lesson,
      &qkv_roles_lesson,
      &gate_lesson,
      &symmetry_lesson,
      &block_lesson,
  };
  return lessons;
}

}  // namespace attn
