// attnlab_train_bench: the default `attnlab train` run timed alone (steps/s, GFLOP/s, the drop).
//   cmake --build build --target attnlab_train_bench && build/attnlab_train_bench [steps] [seed] [threads] [mlp]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "parallel.h"
#include "trainer.h"

int main(int argc, char** argv) {
  attn::train::TrainConfig c;
  c.model = {32, 32, 64, 2, 4, false};
  if (argc > 1) c.steps = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) c.seed = std::strtoull(argv[2], nullptr, 10);
  if (argc > 3) attn::set_threads(std::strtoul(argv[3], nullptr, 10));
  if (argc > 4) c.model.mlp = std::atoi(argv[4]) != 0;
  auto t0 = std::chrono::steady_clock::now();
  attn::train::TrainResult r = attn::train::train(c);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& e = r.evals.back();
  double best_ind = 0, best_prev = 0;
  for (std::size_t h = 0; h < c.model.n_head; ++h) {
    best_prev = std::max(best_prev, e.scores.prev_token(0, h));
    best_ind = std::max(best_ind, e.scores.induction(c.model.n_layer - 1, h));
  }
  std::printf("steps %zu  %.2f s  %.1f steps/s  %.2f GFLOP/s  loss %.4f  repeat %.4f (ablated %.4f)  repeat-loss drop@%zu  prev %.3f  ind %.3f\n",
              c.steps, s, c.steps / s, attn::train::step_flops(c) * c.steps / s / 1e9, r.loss_curve.back(), e.repeat_loss,
              r.repeat_loss_ablated, attn::train::phase_change(r, true, std::log(32.0)).step, best_prev, best_ind);
  for (const auto& ev : r.evals)
    if (ev.step % 250 == 0) std::printf("  step %zu  eval %.4f  repeat %.4f\n", ev.step, ev.loss, ev.repeat_loss);
}
