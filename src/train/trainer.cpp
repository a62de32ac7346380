#include "trainer.h"
#include "libm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clones.h"

namespace attn::train {

double step_flops(const TrainConfig& c) {
  const double B = static_cast<double>(c.batch), T = static_cast<double>(c.model.n_positions),
               C = static_cast<double>(c.model.d_model), V = static_cast<double>(c.model.vocab),
               L = static_cast<double>(c.model.n_layer);
  const double N = B * T;
  double per_layer = 2 * N * C * 3 * C + 2 * N * C * C + 2 * 2 * B * T * T * C;  // c_attn, c_proj, QKᵀ and AV
  if (c.model.mlp) per_layer += 2 * 2 * N * C * 4 * C;
  const double forward = L * per_layer + 2 * N * C * V;
  return 3 * forward;  // backward ≈ twice the forward
}

double step_work(const TrainConfig& c) {
  const double scores = static_cast<double>(c.model.n_layer) * static_cast<double>(c.batch) *
                        static_cast<double>(c.model.n_head) * static_cast<double>(c.model.n_positions) *
                        static_cast<double>(c.model.n_positions);
  return step_flops(c) + kScoreWork * scores + kStepWork;
}

double train_work(const TrainConfig& c) { return step_work(c) * static_cast<double>(c.steps); }

double train_memory_numbers(const TrainConfig& c) {
  const double B = static_cast<double>(std::max(c.batch, c.eval_batch)), T = static_cast<double>(c.model.n_positions),
               C = static_cast<double>(c.model.d_model), V = static_cast<double>(c.model.vocab),
               L = static_cast<double>(c.model.n_layer), H = static_cast<double>(c.model.n_head);
  const double N = B * T;
  double per_layer = N * C * 8 + N * 4 + B * H * T * T;
  if (c.model.mlp) per_layer += N * C * 12;
  return 4 * gpt::gpt_param_count(c.model) + L * per_layer + N * C * 8 + 3 * N * V;
}

namespace {
double masked_mean(const std::vector<double>& losses, const std::vector<int>& targets) {
  double s = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < losses.size(); ++i)
    if (targets[i] >= 0) s += losses[i], ++n;
  return n ? s / static_cast<double>(n) : 0.0;
}

Evaluation evaluate(const gpt::Gpt& m, const Batch& eval, std::size_t step, gpt::GptActs& acts) {
  gpt::gpt_forward(m, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, acts);
  Evaluation e;
  e.step = step;
  e.loss = acts.loss;
  std::vector<double> losses(eval.B * eval.T, 0.0);
  gpt::crossentropy_forward(losses.data(), acts.probs.data(), eval.repeat_targets.data(), eval.B * eval.T, m.config.vocab);
  e.repeat_loss = masked_mean(losses, eval.repeat_targets);
  e.accuracy = argmax_accuracy(acts.probs.data(), eval.targets.data(), eval.B * eval.T, m.config.vocab);
  e.scores = head_scores(m, acts, eval.tokens);
  return e;
}

// The model as the f64 code (evaluation, head scores, clones) reads it: itself in double; float
// weights widened into `wide` (exact).
const gpt::Gpt& as_f64(const gpt::Gpt& m, gpt::Gpt& /*wide*/) { return m; }
const gpt::Gpt& as_f64(const gpt::GptT<float>& m, gpt::Gpt& wide) {
  if (wide.params.size() != m.params.size()) wide = gpt::gpt_cast<double>(m);
  else std::copy(m.params.begin(), m.params.end(), wide.params.begin());
  return wide;
}

// The loop in the scalar type S (double or float); see TrainConfig::compute.
template <class S>
TrainResult train_in(const TrainConfig& c, const std::function<void(std::size_t, std::size_t, double)>& progress) {
  TrainResult r{gpt::make_gpt(c.model, c.seed), {}, {}, {}, {}, 0.0, {}, {}};
  if (c.symmetric_heads) make_heads_identical(r.model);
  if (c.symmetric_heads) r.clone_gap.push_back(max_head_gap(r.model));
  gpt::GptT<S> model = gpt::gpt_cast<S>(r.model);  // double: a copy; float: each weight rounded once
  gpt::Gpt wide;                                    // float: the weights widened, for the f64 readers
  Rng data_rng(c.seed ^ 0xD1B54A32D192ED03ULL), eval_rng(c.seed ^ 0x8CB92BA72F3D8DD7ULL);
  const std::size_t T = c.model.n_positions, V = c.model.vocab;
  const bool text = c.task == Task::Text;
  if (text && c.text == nullptr) throw std::invalid_argument("train: the text task needs its text");
  const Batch eval = text ? text_spread(c.text->heldout, c.eval_batch, T) : make_batch(c.task, c.eval_batch, T, V, eval_rng);
  std::vector<std::uint8_t> decay(r.model.layout.total, 0);
  for (const gpt::ParamTensor& t : r.model.layout.tensors)
    if (t.shape.size() == 2)
      for (std::size_t i = 0; i < t.size; ++i) decay[t.offset + i] = 1;
  AdamWT<S> opt;
  opt.beta1 = c.beta1, opt.beta2 = c.beta2, opt.weight_decay = c.weight_decay;
  gpt::GptActsT<S> acts;
  gpt::GptActs eval_acts;
  std::vector<S> grads;
  r.evals.push_back(evaluate(as_f64(model, wide), eval, 0, eval_acts));
  for (std::size_t step = 0; step < c.steps; ++step) {
    Batch b = text ? text_batch(c.text->train, c.batch, T, data_rng, c.repeat_share) : make_batch(c.task, c.batch, T, V, data_rng);
    gpt::gpt_forward(model, b.tokens.data(), b.targets.data(), b.B, b.T, acts);
    r.loss_curve.push_back(acts.loss);
    gpt::gpt_backward(model, b.tokens.data(), b.targets.data(), acts, grads);
    double lr = learning_rate(c, step);
    adamw_step(opt, model.params, grads, lr, &decay);
    if (c.symmetric_heads) r.clone_gap.push_back(max_head_gap(as_f64(model, wide)));
    if (progress) progress(step + 1, c.steps, acts.loss);
    if ((step + 1) % c.eval_every == 0 || step + 1 == c.steps)
      r.evals.push_back(evaluate(as_f64(model, wide), eval, step + 1, eval_acts));
  }
  r.model = gpt::gpt_cast<double>(model);
  // The final attention on the first evaluation sequence (eval_acts holds the last evaluation).
  const std::size_t L = c.model.n_layer, H = c.model.n_head;
  r.final_attention = Tensor({L, H, T, T});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      Tensor w = gpt::attention_of(r.model, eval_acts, l, h, 0);
      std::copy(w.data.begin(), w.data.end(), r.final_attention.data.begin() + static_cast<std::ptrdiff_t>((l * H + h) * T * T));
    }
  r.pattern_tokens.assign(eval.tokens.begin(), eval.tokens.begin() + static_cast<std::ptrdiff_t>(T));
  if (text) {  // the whole held-out slice, each character once; no repeat to ablate
    r.heldout_loss = text_loss(r.model, c.text->heldout, T, c.eval_batch, &r.heldout_targets);
    return r;
  }
  // Zero the induction heads and measure the loss on the repeat again.
  const HeadScores& s = r.evals.back().scores;
  const std::size_t from = c.model.n_layer > 1 ? 1 : 0;
  std::pair<std::size_t, std::size_t> best{from, 0};
  for (std::size_t l = from; l < c.model.n_layer; ++l)
    for (std::size_t h = 0; h < c.model.n_head; ++h) {
      if (s.induction(l, h) >= 0.5) r.ablated.push_back({l, h});
      if (s.induction(l, h) > s.induction(best.first, best.second)) best = {l, h};
    }
  if (r.ablated.empty()) r.ablated.push_back(best);
  std::vector<std::vector<double>> gates(c.model.n_layer);
  for (auto [l, h] : r.ablated) {
    if (gates[l].empty()) gates[l].assign(c.model.n_head, 1.0);
    gates[l][h] = 0.0;
  }
  gpt::gpt_forward(r.model, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, eval_acts, &gates);
  std::vector<double> losses(eval.B * T, 0.0);
  gpt::crossentropy_forward(losses.data(), eval_acts.probs.data(), eval.repeat_targets.data(), eval.B * T, V);
  r.repeat_loss_ablated = masked_mean(losses, eval.repeat_targets);
  return r;
}
}  // namespace


TrainResult train(const TrainConfig& c, const std::function<void(std::size_t, std::size_t, double)>& progress) {
  return c.compute == Precision::F32 ? train_in<float>(c, progress) : train_in<double>(c, progress);
}

double learning_rate(const TrainConfig& c, std::size_t step) {
  if (step < c.warmup) return c.lr * static_cast<double>(step + 1) / static_cast<double>(c.warmup);
  if (!c.cosine || c.steps <= c.warmup + 1) return c.lr;
  const double pi = 3.14159265358979323846;
  const double progress = static_cast<double>(step - c.warmup) / static_cast<double>(c.steps - c.warmup - 1);
  const double lo = c.lr * c.min_lr_ratio;
  return lo + 0.5 * (c.lr - lo) * (1.0 + libm::cos(pi * progress));
}

double argmax_accuracy(const double* probs, const int* targets, std::size_t N, std::size_t V) {
  std::size_t right = 0, counted = 0;
  for (std::size_t n = 0; n < N; ++n) {
    if (targets[n] < 0) continue;
    const double* p = probs + n * V;
    right += static_cast<std::size_t>(std::max_element(p, p + V) - p) == static_cast<std::size_t>(targets[n]);
    ++counted;
  }
  return counted ? static_cast<double>(right) / static_cast<double>(counted) : 0.0;
}

std::size_t drop_step(const std::vector<double>& loss_curve, double level) {
  std::size_t at = loss_curve.size();
  for (std::size_t i = loss_curve.size(); i-- > 0;) {
    if (loss_curve[i] >= level) break;
    at = i;
  }
  return at;
}


Drop phase_change(const TrainResult& r, bool on_repeat, double ln_vocab) {
  Drop d;
  for (std::size_t i = r.evals.size(); i-- > 0;) {
    double loss = on_repeat ? r.evals[i].repeat_loss : r.evals[i].loss;
    if (loss >= 0.5 * ln_vocab) break;
    d = {true, r.evals[i].step};
  }
  return d;
}

}  // namespace attn::train
