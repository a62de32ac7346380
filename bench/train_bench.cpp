// attnlab_train_bench: the default `attnlab train` run timed alone (wall and CPU time, steps/s,
// GFLOP/s, the drop, the scores), and how one step's cost scales with batch, length and width.
//   cmake --build build --target attnlab_train_bench
//   build/attnlab_train_bench [steps] [seed] [threads] [mlp]     the default run (4,000 steps, seed 42)
//   build/attnlab_train_bench scale [threads]                    ms a step at B, T, C around the default
//   build/attnlab_train_bench step L H C T B V [threads] [steps] [warmup] [f64|f32]
//       one training step (forward + backward + AdamW, the MLP on) of that shape on a fixed random
//       batch, computed in f64 (default) or f32 (`train --dtype f32`): prints each timed step's wall
//       and CPU ms and the median; bench/train_step_vs_torch.sh reads it
// Timings are for a quiet machine; on a shared one the CPU time (all threads) says more than the wall.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include <vector>

#include "adamw.h"
#include "libm.h"
#include "gpt.h"
#include "parallel.h"
#include "random.h"
#include "trainer.h"

namespace {

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// ms of wall and CPU time a training step takes at these sizes (the mean over `steps`).
void time_steps(std::size_t B, std::size_t T, std::size_t C, std::size_t steps) {
  attn::train::TrainConfig c;
  c.model = {32, T, C, 2, 4, false};
  c.batch = B;
  c.steps = steps;
  c.eval_every = steps;  // one evaluation at the end only
  const double c0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  attn::train::train(c);
  const double w0 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = cpu_seconds() - c0;
  double gflop = attn::train::step_flops(c) / 1e9;
  std::printf("  B %4zu  T %3zu  C %4zu   %.3f GFLOP/step   %8.1f ms/step wall  %8.1f ms/step CPU   %6.2f GFLOP/s wall\n", B, T, C,
              gflop, 1e3 * w0 / steps, 1e3 * cpu / steps, gflop * steps / w0);
}

int scale(int argc, char** argv) {
  if (argc > 2) attn::set_threads(std::strtoul(argv[2], nullptr, 10));
  std::printf("one training step (attention-only, 2 layers x 4 heads, V 32), 20 steps each:\n");
  for (std::size_t B : {32, 64, 128}) time_steps(B, 32, 64, 20);
  for (std::size_t T : {16, 64}) time_steps(64, T, 64, 20);
  for (std::size_t C : {32, 128}) time_steps(64, 32, C, 20);
  return 0;
}

// One training step as attn::train::train takes it (gpt_forward, gpt_backward, adamw_step with
// betas 0.9/0.98, weight decay 0.01 on the matrices only), timed step by step on one fixed batch
// of random tokens (targets: the next token), so that drawing the batch is not timed. S: the
// scalar type computed in (double, or float as `train --dtype f32`).
template <class S>
int step_in(std::size_t L, std::size_t H, std::size_t C, std::size_t T, std::size_t B, std::size_t V, std::size_t steps,
            std::size_t warmup) {
  attn::gpt::GptConfig cfg{V, T, C, L, H, true};
  attn::gpt::GptT<S> m = attn::gpt::gpt_cast<S>(attn::gpt::make_gpt(cfg, 42));
  std::vector<std::uint8_t> decay(m.layout.total, 0);
  for (const attn::gpt::ParamTensor& t : m.layout.tensors)
    if (t.shape.size() == 2)
      for (std::size_t i = 0; i < t.size; ++i) decay[t.offset + i] = 1;
  attn::Rng rng(7);
  std::vector<int> seq(B * (T + 1)), tokens(B * T), targets(B * T);
  for (int& id : seq) id = static_cast<int>(rng.next_u64() % V);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      tokens[b * T + t] = seq[b * (T + 1) + t];
      targets[b * T + t] = seq[b * (T + 1) + t + 1];
    }
  attn::AdamWT<S> opt;
  opt.beta1 = 0.9, opt.beta2 = 0.98, opt.weight_decay = 0.01;
  attn::gpt::GptActsT<S> acts;
  std::vector<S> grads;
  std::vector<double> ms, cpu_ms;
  double first_loss = 0, last_loss = 0;
  for (std::size_t s = 0; s < warmup + steps; ++s) {
    const double c0 = cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    attn::gpt::gpt_forward(m, tokens.data(), targets.data(), B, T, acts);
    attn::gpt::gpt_backward(m, tokens.data(), targets.data(), acts, grads);
    attn::adamw_step(opt, m.params, grads, 1e-3, &decay);
    const double w = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double c = 1e3 * (cpu_seconds() - c0);
    if (s == 0) first_loss = acts.loss;
    last_loss = acts.loss;
    if (s >= warmup) ms.push_back(w), cpu_ms.push_back(c);
  }
  std::printf("steps_ms");
  for (double w : ms) std::printf(" %.3f", w);
  std::printf("\nsteps_cpu_ms");  // CPU time of the process (all threads) in each step
  for (double c : cpu_ms) std::printf(" %.3f", c);
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  attn::train::TrainConfig tc;
  tc.model = cfg, tc.batch = B;
  std::printf("\nattnlab %s  L %zu H %zu C %zu T %zu B %zu V %zu  threads %zu  params %zu  %.2f GFLOP/step  "
              "ms/step median %.2f min %.2f max %.2f  loss %.4f -> %.4f\n",
              sizeof(S) == 4 ? "f32" : "f64", L, H, C, T, B, V, attn::thread_count(), m.layout.total,
              attn::train::step_flops(tc) / 1e9, median, sorted.front(), sorted.back(), first_loss, last_loss);
  return 0;
}

int step(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: attnlab_train_bench step L H C T B V [threads] [steps] [warmup] [f64|f32]\n");
    return 2;
  }
  auto arg = [&](int i) { return static_cast<std::size_t>(std::strtoul(argv[i], nullptr, 10)); };
  const std::size_t L = arg(2), H = arg(3), C = arg(4), T = arg(5), B = arg(6), V = arg(7);
  if (argc > 8) attn::set_threads(arg(8));
  const std::size_t steps = argc > 9 ? arg(9) : 20, warmup = argc > 10 ? arg(10) : 3;
  const std::string dtype = argc > 11 ? argv[11] : "f64";
  if (!L || !H || !C || !T || !B || V < 2 || C % H || !steps || (dtype != "f64" && dtype != "f32")) {
    std::fprintf(stderr, "attnlab_train_bench step: L, H, C, T, B ≥ 1, V ≥ 2, H divides C, steps ≥ 1, f64 or f32\n");
    return 2;
  }
  return dtype == "f32" ? step_in<float>(L, H, C, T, B, V, steps, warmup) : step_in<double>(L, H, C, T, B, V, steps, warmup);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "scale") == 0) return scale(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "step") == 0) return step(argc, argv);
  attn::train::TrainConfig c;
  c.model = {32, 32, 64, 2, 4, false};
  c.steps = 4000;  // `attnlab train`'s default
  if (argc > 1) c.steps = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) c.seed = std::strtoull(argv[2], nullptr, 10);
  if (argc > 3) attn::set_threads(std::strtoul(argv[3], nullptr, 10));
  if (argc > 4) c.model.mlp = std::atoi(argv[4]) != 0;
  c.eval_every = std::max<std::size_t>(1, c.steps / 40);  // as `attnlab train` sets it
  const double c0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  attn::train::TrainResult r = attn::train::train(c);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = cpu_seconds() - c0;
  const auto& e = r.evals.back();
  double best_ind = 0, best_prev = 0;
  for (std::size_t h = 0; h < c.model.n_head; ++h) {
    best_prev = std::max(best_prev, e.scores.prev_token(0, h));
    best_ind = std::max(best_ind, e.scores.induction(c.model.n_layer - 1, h));
  }
  const double ln_v = attn::libm::log(static_cast<double>(c.model.vocab));
  attn::train::Drop d = attn::train::phase_change(r, true, ln_v);
  std::printf("seed %llu  mlp %d  steps %zu  %.1f s wall  %.1f s CPU  %.1f steps/s  %.2f GFLOP/s wall  %.2f GFLOP/s CPU  "
              "repeat %.4f (%.3f ln V; ablated %.4f)  drop@%s  prev %.3f  ind %.3f\n",
              static_cast<unsigned long long>(c.seed), c.model.mlp ? 1 : 0, c.steps, s, cpu, c.steps / s,
              attn::train::step_flops(c) * c.steps / s / 1e9, attn::train::step_flops(c) * c.steps / cpu / 1e9, e.repeat_loss,
              e.repeat_loss / ln_v, r.repeat_loss_ablated, d.reached ? std::to_string(d.step).c_str() : "never", best_prev, best_ind);
  for (const auto& ev : r.evals)
    if (ev.step % 250 == 0) std::printf("  step %zu  eval %.4f  repeat %.4f\n", ev.step, ev.loss, ev.repeat_loss);
}
