// Lesson `block`'s exercises (see lessons/exercise.h); words: lessons/block/LANG.cat, ex.N.*.
// Keys from layernorm (src/math/layernorm.h) and count_params on the GPT-2 preset (src/models).
#include "exercise.h"
#include "layernorm.h"
#include "models.h"

namespace attn {

namespace {

// 1. By hand: LayerNorm (γ = 1, β = 0) of four numbers; the first output.
Posed layernorm_first(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  Tensor x(Shape{1, 4});  // (T = 1, D = 4)
  for (double& v : x.data) v = draw.grid(-4, 4, 1);
  if (x.data[0] == x.data[1] && x.data[1] == x.data[2] && x.data[2] == x.data[3]) x.data[3] += 2;  // not constant
  Tensor gamma(Shape{4}, {1, 1, 1, 1}), beta(Shape{4});
  LayerNormPass ln = layernorm(x, gamma, beta);
  double var = 1.0 / (ln.rstd.data[0] * ln.rstd.data[0]) - kLayerNormEps;
  Posed p{ExerciseKind::by_hand, "block.ex.1."};
  p.args = {{"x1", x.data[0]}, {"x2", x.data[1]}, {"x3", x.data[2]}, {"x4", x.data[3]},
            {"mean", ln.mean.data[0]}, {"var", var}, {"y1", ln.out.data[0]}};
  p.key = ln.out.data[0];
  p.sig_figs = 3;
  return p;
}

// 2. Predict: the parameters of one GPT-2 small block.
Posed gpt2_block(std::uint64_t) {
  ModelConfig m = load_preset("gpt2");
  ParamReport r = count_params(m);
  const LayerParams& l = r.layers.at(0);
  u64 per_block = l.total;  // one layer's (LayerParams counts one layer; `layers` says how many there are)
  Posed p{ExerciseKind::predict, "block.ex.2."};
  p.args = {{"model", m.title}, {"d", m.d}, {"d_ff", m.d_ff}, {"attention", l.attention_total},
            {"ffn", l.ffn_total}, {"norms", l.norm_total}, {"total", per_block}};
  p.key = static_cast<double>(per_block);
  p.sig_figs = 3;
  return p;
}

// 3. Why: the residual stream.
Posed why_residual(std::uint64_t) {
  return why_posed("block.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> block_exercises() {
  return {{ExerciseKind::by_hand, layernorm_first},
          {ExerciseKind::predict, gpt2_block},
          {ExerciseKind::why, why_residual}};
}

}  // namespace attn
