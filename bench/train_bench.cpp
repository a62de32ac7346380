// attnlab_train_bench: the default `attnlab train` run timed alone (wall and CPU time, steps/s,
// GFLOP/s, the drop, the scores), and how one step's cost scales with batch, length and width.
//   cmake --build build --target attnlab_train_bench
//   build/attnlab_train_bench [steps] [seed] [threads] [mlp]     the default run (4,000 steps, seed 42)
//   build/attnlab_train_bench scale [threads]                    ms a step at B, T, C around the default
// Timings are for a quiet machine; on a shared one the CPU time (all threads) says more than the wall.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "parallel.h"
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

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "scale") == 0) return scale(argc, argv);
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
  const double ln_v = std::log(static_cast<double>(c.model.vocab));
  attn::train::Drop d = attn::train::phase_change(r, true, ln_v);
  std::printf("seed %llu  mlp %d  steps %zu  %.1f s wall  %.1f s CPU  %.1f steps/s  %.2f GFLOP/s wall  %.2f GFLOP/s CPU  "
              "repeat %.4f (%.3f ln V; ablated %.4f)  drop@%s  prev %.3f  ind %.3f\n",
              static_cast<unsigned long long>(c.seed), c.model.mlp ? 1 : 0, c.steps, s, cpu, c.steps / s,
              attn::train::step_flops(c) * c.steps / s / 1e9, attn::train::step_flops(c) * c.steps / cpu / 1e9, e.repeat_loss,
              e.repeat_loss / ln_v, r.repeat_loss_ablated, d.reached ? std::to_string(d.step).c_str() : "never", best_prev, best_ind);
  for (const auto& ev : r.evals)
    if (ev.step % 250 == 0) std::printf("  step %zu  eval %.4f  repeat %.4f\n", ev.step, ev.loss, ev.repeat_loss);
}
