// Lesson `kv-memory`'s exercises (see lessons/exercise.h); words: lessons/kv_memory/LANG.cat, ex.N.*.
// Keys from ffn_forward and top_k_indices (src/math/ffn.h), the functions the lesson reads the memory with.
#include "exercise.h"
#include "ffn.h"

namespace attn {

namespace {

struct TinyMemory {
  Tensor x, W_1, b_1, W_2, b_2;  // (2), (2, 3): three keys as columns, (3), (3, 1): three values, (1)
};

TinyMemory draw_memory(ExerciseDraw& draw) {
  TinyMemory m{Tensor(Shape{2}), Tensor(Shape{2, 3}), Tensor(Shape{3}), Tensor(Shape{3, 1}), Tensor(Shape{1})};
  for (double& v : m.x.data) v = draw.grid(-2, 2, 1);
  for (double& v : m.W_1.data) v = draw.grid(-2, 2, 1);
  for (double& v : m.W_2.data) v = draw.grid(-3, 3, 1);
  return m;
}

Args memory_args(const TinyMemory& m, const FfnPass& f) {
  return {{"x1", m.x.data[0]}, {"x2", m.x.data[1]}, {"k11", m.W_1(0, 0)}, {"k12", m.W_1(1, 0)},
          {"k21", m.W_1(0, 1)}, {"k22", m.W_1(1, 1)}, {"k31", m.W_1(0, 2)}, {"k32", m.W_1(1, 2)},
          {"v1", m.W_2.data[0]}, {"v2", m.W_2.data[1]}, {"v3", m.W_2.data[2]},
          {"z1", f.z.data[0]}, {"z2", f.z.data[1]}, {"z3", f.z.data[2]},
          {"h1", f.h.data[0]}, {"h2", f.h.data[1]}, {"h3", f.h.data[2]}, {"y", f.y.data[0]}};
}

// 1. By hand: which of three keys matches the input most strongly (ReLU, no bias).
Posed strongest_key(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  TinyMemory m = draw_memory(draw);
  FfnPass f = ffn_forward(m.x, m.W_1, m.b_1, m.W_2, m.b_2, Activation::Relu);
  std::size_t best = top_k_indices(f.z, 1)[0];
  Posed p{ExerciseKind::by_hand, "kv_memory.ex.1."};
  p.args = memory_args(m, f);
  p.args.push_back({"best", best + 1});
  p.key = static_cast<double>(best + 1);
  return p;
}

// 2. By hand: what the memory writes: Σ_j ReLU(x·key_j) · value_j.
Posed memory_output(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  TinyMemory m = draw_memory(draw);
  FfnPass f = ffn_forward(m.x, m.W_1, m.b_1, m.W_2, m.b_2, Activation::Relu);
  Posed p{ExerciseKind::by_hand, "kv_memory.ex.2."};
  p.args = memory_args(m, f);
  p.key = f.y.data[0];
  return p;
}

// 3. Why: which is the key, which the value, in x·W_1.
Posed why_convention(std::uint64_t) {
  return why_posed("kv_memory.ex.3.", 4, 3);  // d
}

}  // namespace

std::vector<Exercise> kv_memory_exercises() {
  return {{ExerciseKind::by_hand, strongest_key},
          {ExerciseKind::by_hand, memory_output},
          {ExerciseKind::why, why_convention}};
}

}  // namespace attn
