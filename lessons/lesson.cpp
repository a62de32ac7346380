#include "lesson.h"

namespace attn {

std::string catalog_name(const LessonInfo& info) {
  std::string n = info.name;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo* l : all_lessons())
    if (name == l->name) return l;
  return nullptr;
}

}  // namespace attn
