// Lesson `decode`'s exercises (see lessons/exercise.h); words: lessons/decode/LANG.cat, ex.N.*.
// Keys from kv_usage on a preset (src/models) and decode_flops (src/math/decode_flops.h), the lesson's
// multiply-add counts.
#include "decode_flops.h"
#include "exercise.h"
#include "gqa.h"
#include "models.h"

namespace attn {

namespace {

// 1. Predict: how many numbers one generated token appends to the cache, all layers.
Posed appended_per_token(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  const std::string name = draw.pick(std::vector<std::string>{"llama-3-8b", "llama-2-7b", "qwen3-8b", "gpt2"});
  ModelConfig m = load_preset(name);
  KvUsage u = kv_usage(m, 1, 1, Dtype{"bf16", 16}, 1);
  Posed p{ExerciseKind::predict, "decode.ex.1."};
  p.args = {{"model", m.title}, {"layers", m.l}, {"kv_heads", m.n_g}, {"head_dim", m.d_h},
            {"per_layer", kv_cache_elements(static_cast<std::int64_t>(m.n_g), static_cast<std::int64_t>(m.d_h))},
            {"numbers", u.elements_per_token}};
  p.key = static_cast<double>(u.elements_per_token);
  return p;
}

// 2. By hand: the attention core's FLOP per byte of cache read at one decode step (bf16), GQA.
Posed intensity(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  struct HG { std::uint64_t H, G; };
  const HG s = draw.pick(std::vector<HG>{{32, 8}, {32, 32}, {32, 1}, {64, 8}, {16, 4}, {40, 8}});
  const std::uint64_t Dh = 128, n = 4096;
  FlopDims d{s.H * Dh, s.H, s.G, Dh, 0, 0, 0, 4 * s.H * Dh, false};
  const std::vector<LayerFlops> flops = decode_flops(d, n);
  const char* id = s.G == s.H ? "mha" : s.G == 1 ? "mqa" : "gqa";
  std::uint64_t macs = 0;
  for (const LayerFlops& f : flops)
    if (f.id == id) macs = f.scores + f.weighted_sum;
  std::uint64_t bytes = 2 * s.G * Dh * n * 2;  // K and V of every cached token, 2 bytes a number
  double per_byte = 2.0 * static_cast<double>(macs) / static_cast<double>(bytes);
  Posed p{ExerciseKind::by_hand, "decode.ex.2."};
  p.args = {{"heads", s.H}, {"kv_heads", s.G}, {"d_h", Dh}, {"n", n}, {"macs", macs}, {"bytes", bytes}, {"per_byte", per_byte}};
  p.key = per_byte;
  p.sig_figs = 3;
  return p;
}

// 3. Why: decoding waits on memory.
Posed why_memory_bound(std::uint64_t) {
  return why_posed("decode.ex.3.", 4, 3);  // d
}

}  // namespace

std::vector<Exercise> decode_exercises() {
  return {{ExerciseKind::predict, appended_per_token},
          {ExerciseKind::by_hand, intensity},
          {ExerciseKind::why, why_memory_bound}};
}

}  // namespace attn
