#pragma once
// The path through the chapter and the conversation (attnlab course): the stops in the order a
// learner should take them, each naming its lesson(s) and about how many minutes it takes. What a
// stop teaches is the catalog key course.stop.ID. The last stop has no lesson: the trained text
// models, through the `heads` and `generate` commands.
#include <string>
#include <vector>

namespace attn {

struct CourseStop {
  const char* id;                     // "attention", "text": course.stop.ID
  std::vector<const char*> lessons;   // the lessons it runs (empty: commands, course.stop.ID.commands)
  int minutes;                        // about how long, reading the lesson and doing its exercises
  const char* command;                // what to run first at this stop
};

const std::vector<CourseStop>& course_stops();

}  // namespace attn
