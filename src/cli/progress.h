#pragma once
// The learner's progress: which exercises were answered right, in one small JSON file,
//   $XDG_STATE_HOME/attnlab/progress.json   (default ~/.local/state/attnlab/progress.json)
//   {"schema": "attnlab.progress/1", "done": ["attention.1", "gqa.2"]}
// written atomically (a temporary file in the same folder, then renamed over the old one). A file
// that is not a regular file (a link, a folder, a FIFO), too large, not JSON, not this schema, or
// with an entry that is not an exercise id is refused with one line (course.err.progress, exit 2)
// and left exactly as it was: it is never overwritten silently. `attnlab course --reset` removes it.
#include <set>
#include <string>

namespace attn::cli {

struct Progress {
  std::set<std::string> done;  // exercise ids "LESSON.N"
};

std::string progress_path();
Progress read_progress();                     // no file yet: nothing done
void record_exercise_done(const std::string& id);  // read, add, write (a damaged file is refused first)
bool reset_progress();                        // true if there was a file to remove

}  // namespace attn::cli
