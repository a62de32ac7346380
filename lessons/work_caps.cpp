// The work and memory caps. See work_caps.h.
#include "work_caps.h"

#include <algorithm>

#include "errors.h"
#include "trainer.h"

namespace attn {

// The flags to reduce, as a plain list: "--seq-len/--tokens, --heads" (an " or " written by a
// caller becomes ", ", so no English word reaches the message).
static std::string flag_list(const std::string& flags) {
  std::string out = flags;
  for (std::size_t at; (at = out.find(" or ")) != std::string::npos;) out.replace(at, 4, ", ");
  for (std::size_t at; (at = out.find(", , ")) != std::string::npos;) out.replace(at, 4, ", ");
  return out;
}

void require_fits(const Shape& shape, const std::string& what, const std::string& flags) {
  if (checked_numel(shape) != 0) return;
  double numbers = 1.0;
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  throw UsageError("cli.err.tensor_too_large", {{"what", what}, {"shape", shape_str(shape)}, {"numbers", numbers},
                                                {"max", kMaxTensorElements}, {"flags", flag_list(flags)}});
}

void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags) {
  double numbers = static_cast<double>(count);
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  if (numbers <= static_cast<double>(kMaxLessonElements)) return;
  throw UsageError("cli.err.lesson_too_large", {{"what", what}, {"count", count}, {"shape", shape_str(shape)},
                                                {"numbers", numbers}, {"max", kMaxLessonElements}, {"flags", flag_list(flags)}});
}

static double g_max_work = kMaxLessonWork, g_max_numbers = kMaxWorkNumbers;

void set_work_caps_for_fuzzing(double max_work, double max_numbers) {
  g_max_work = max_work;
  g_max_numbers = max_numbers;
}

double work_cap_scale() { return g_max_work / kMaxLessonWork; }

bool work_fits(const Work& w) {
  return w.madds + kWorkPerNumber * w.numbers <= g_max_work && w.numbers + w.held <= g_max_numbers;
}

void require_work(const std::function<Work(double)>& estimate, std::size_t n, const std::string& size_flag,
                  const std::string& flags) {
  Work w = estimate(static_cast<double>(n));
  if (work_fits(w)) return;
  // The largest accepted value of size_flag, by bisection (the work grows with it).
  std::size_t lo = 0, hi = n;  // estimate(lo) fits (or lo = 0), estimate(hi) does not
  while (hi - lo > 1) {
    std::size_t mid = lo + (hi - lo) / 2;
    Work m = estimate(static_cast<double>(mid));
    if (work_fits(m) && m.largest <= static_cast<double>(kMaxTensorElements)) lo = mid;
    else hi = mid;
  }
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  // The costliest part: the largest share of either cap.
  auto share = [](const WorkPart& p) {
    return std::max((p.madds + kWorkPerNumber * p.numbers) / g_max_work, (p.numbers + p.held) / g_max_numbers);
  };
  const WorkPart* part = nullptr;
  for (const WorkPart& p : w.parts)
    if (part == nullptr || share(p) > share(*part)) part = &p;
  throw UsageError("input.err.work_too_large",
                   {{"madds", w.madds + kWorkPerNumber * w.numbers}, {"gib", (w.numbers + w.held) * 8.0 / gib}, {"max_madds", g_max_work},
                    {"max_gib", g_max_numbers * 8.0 / gib}, {"flags", flag_list(flags)}, {"flag", size_flag},
                    {"largest", lo}, {"has_part", part != nullptr}, {"part", part ? part->what : std::string()},
                    {"part_madds", part ? part->madds + kWorkPerNumber * part->numbers : 0.0},
                    {"part_gib", part ? (part->numbers + part->held) * 8.0 / gib : 0.0}, {"part_flags", part ? flag_list(part->flags) : std::string()}});
}

Work head_work(const HeadDims& d, double T, double passes) {
  double D = static_cast<double>(d.D), H = static_cast<double>(d.H);
  // Q, K, V, O projections and the scores and weighted sums; X, Q, K, V, heads, out, the
  // weights, scores and the (H, T, T) attention tensors kept for the trace.
  return {passes * (4.0 * T * D * D + 2.0 * T * T * D), passes * (8.0 * T * D + 4.0 * H * T * T) + 4.0 * D * D,
          std::max({D * D, T * D, H * T * T})};
}

void require_head_work(const HeadDims& d, double passes) {
  require_work([&](double T) { return head_work(d, T, passes); }, d.T, "--seq-len/--tokens",
               "--seq-len/--tokens, --d-model, --heads");
}

void require_retrain_fits(double flops) {
  const double max = train::kMaxTrainWork * work_cap_scale();
  if (flops > max) throw UsageError("input.err.retrain_work", {{"flops", flops}, {"max", max}});
}

}  // namespace attn
