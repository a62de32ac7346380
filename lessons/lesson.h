#pragma once
// What every lesson shares: its registry entry (LessonInfo, here), the options every run has
// (RunContext, options.h), the helpers that turn options into validated sizes (lesson_options.h),
// the work and memory caps checked before anything is computed (work_caps.h) and the recorder it
// writes to (recorder.h); this header includes them all. A lesson is one folder in lessons/:
// NAME.cpp with its own options struct, a bind function and a run function, beside its catalogs;
// it does no printing and no file I/O.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog.h"
#include "lesson_options.h"
#include "options.h"
#include "recorder.h"
#include "trace.h"
#include "work_caps.h"

namespace attn {

struct LessonInfo {
  const char* name;  // "mha"; its one-line summary is the catalog key NAME.summary
  std::function<std::unique_ptr<LessonRun>()> make;  // a run with the lesson's default options
};

// The registry entry of a lesson whose options are `Options` (a struct deriving from RunContext):
//   extern const LessonInfo mha_lesson = lesson_info<MhaOptions>("mha", bind, run);
template <class Options>
LessonInfo lesson_info(const char* name, void (*bind)(OptionBinder&, Options&),
                       Trace (*run)(const Options&)) {
  return {name, [bind, run] { return std::make_unique<TypedLessonRun<Options>>(bind, run); }};
}

// All lessons, in teaching order (lessons/registry.cpp: one line per lesson).
const std::vector<const LessonInfo*>& all_lessons();
const LessonInfo* find_lesson(const std::string& name);  // nullptr if unknown
// The catalog a lesson's words are in: its name with '-' as '_' ("kv-memory" -> "kv_memory").
std::string catalog_name(const LessonInfo& info);

}  // namespace attn
