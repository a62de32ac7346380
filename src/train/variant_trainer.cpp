#include "variant_trainer.h"
#include "libm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adamw.h"

namespace attn::train {

double variant_learning_rate(const VariantRun& r, std::size_t step) {
  if (step < r.warmup) return r.lr * static_cast<double>(step + 1) / static_cast<double>(r.warmup);
  if (r.steps <= r.warmup + 1) return r.lr;
  const double pi = 3.14159265358979323846;
  const double progress = static_cast<double>(step - r.warmup) / static_cast<double>(r.steps - r.warmup - 1);
  const double lo = r.lr * r.min_lr_ratio;
  return lo + 0.5 * (r.lr - lo) * (1.0 + libm::cos(pi * progress));
}

double variant_step_flops(const VariantRun& r) {
  const decoder::DecoderConfig& c = r.model;
  const double N = static_cast<double>(r.batch) * static_cast<double>(c.n_positions),
               T = static_cast<double>(c.n_positions), B = static_cast<double>(r.batch),
               C = static_cast<double>(c.d_model), V = static_cast<double>(c.vocab),
               H = static_cast<double>(c.n_head), L = static_cast<double>(c.n_layer),
               dq = static_cast<double>(c.qk_dim()), hs = static_cast<double>(c.hs());
  // every layer's weights are used once per row; embeddings and norms are not multiplies
  const double pos = c.positions == decoder::Positions::Learned ? static_cast<double>(c.n_positions) * C : 0.0;
  const double layer_weights = (decoder::decoder_param_count(c) - V * C - pos) / L;
  const double per_layer = 2 * N * layer_weights + 2 * B * H * T * T * (dq + hs);
  return 3 * (L * per_layer + 2 * N * C * V);  // backward ≈ twice the forward
}

double variant_text_loss(const decoder::Decoder& m, const std::vector<int>& ids, std::size_t T, std::size_t batch,
                         std::size_t* targets) {
  const std::size_t windows = ids.size() > T ? (ids.size() - 1) / T : 0;  // window w: ids[w·T … w·T + T]
  double sum = 0.0;
  std::size_t counted = 0;
  decoder::DecoderActs acts;
  std::vector<int> tokens, next;
  for (std::size_t w0 = 0; w0 < windows; w0 += batch) {
    const std::size_t B = std::min(batch, windows - w0);
    tokens.assign(B * T, 0), next.assign(B * T, 0);
    for (std::size_t s = 0; s < B; ++s)
      for (std::size_t t = 0; t < T; ++t) {
        tokens[s * T + t] = ids[(w0 + s) * T + t];
        next[s * T + t] = ids[(w0 + s) * T + t + 1];
      }
    decoder::decoder_forward(m, tokens.data(), next.data(), B, T, acts);
    sum += acts.loss * static_cast<double>(B * T);
    counted += B * T;
  }
  if (targets != nullptr) *targets = counted;
  return counted ? sum / static_cast<double>(counted) : 0.0;
}

VariantResult train_variant(const VariantRun& r, const std::function<void(std::size_t, std::size_t, double)>& progress) {
  if (r.text == nullptr) throw std::invalid_argument("train_variant: no text");
  VariantResult out{decoder::make_decoder(r.model, r.seed), {}, {}, 0.0, 0};
  const std::size_t T = r.model.n_positions;
  Rng data_rng(r.seed ^ 0xD1B54A32D192ED03ULL);  // the stream trainer.cpp draws its windows from
  const Batch eval = text_spread(r.text->heldout, r.eval_batch, T);
  std::vector<std::uint8_t> decay(out.model.layout.total, 0);  // matrices decay; norms do not
  for (const gpt::ParamTensor& t : out.model.layout.tensors)
    if (t.shape.size() == 2)
      for (std::size_t i = 0; i < t.size; ++i) decay[t.offset + i] = 1;
  AdamW opt;
  opt.beta1 = r.beta1, opt.beta2 = r.beta2, opt.weight_decay = r.weight_decay;
  decoder::DecoderActs acts, eval_acts;
  std::vector<double> grads;
  auto evaluate = [&](std::size_t step) {
    decoder::decoder_forward(out.model, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, eval_acts);
    out.evals.push_back({step, eval_acts.loss});
  };
  evaluate(0);
  for (std::size_t step = 0; step < r.steps; ++step) {
    const Batch b = text_batch(r.text->train, r.batch, T, data_rng);
    decoder::decoder_forward(out.model, b.tokens.data(), b.targets.data(), b.B, b.T, acts);
    out.loss_curve.push_back(acts.loss);
    decoder::decoder_backward(out.model, b.tokens.data(), b.targets.data(), acts, grads);
    adamw_step(opt, out.model.params, grads, variant_learning_rate(r, step), &decay);
    if (progress) progress(step + 1, r.steps, acts.loss);
    if ((step + 1) % r.eval_every == 0 || step + 1 == r.steps) evaluate(step + 1);
  }
  out.heldout_loss = variant_text_loss(out.model, r.text->heldout, T, r.eval_batch, &out.heldout_targets);
  return out;
}

}  // namespace attn::train
