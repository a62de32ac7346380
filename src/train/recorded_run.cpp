#include "recorded_run.h"

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "embedded_data.h"

namespace attn::train {

namespace {

using nlohmann::json;

Tensor matrix_of(const json& rows) {  // [[…], …] (L, H)
  const std::size_t L = rows.size(), H = L ? rows.at(0).size() : 0;
  Tensor t({L, H});
  for (std::size_t l = 0; l < L; ++l) {
    if (rows.at(l).size() != H) throw std::runtime_error("train trace: ragged score matrix");
    for (std::size_t h = 0; h < H; ++h) t(l, h) = rows.at(l).at(h).get<double>();
  }
  return t;
}

TrainConfig config_of(const json& j) {
  TrainConfig c;
  const std::string task = j.at("task").get<std::string>();
  if (!parse_task(task, c.task)) throw std::runtime_error("train trace: unknown task " + task);
  c.model.n_layer = j.at("n_layer").get<std::size_t>();
  c.model.n_head = j.at("n_head").get<std::size_t>();
  c.model.d_model = j.at("n_embd").get<std::size_t>();
  c.model.vocab = j.at("vocab_size").get<std::size_t>();
  c.model.n_positions = j.at("n_positions").get<std::size_t>();
  c.model.mlp = j.at("mlp").get<bool>();
  c.batch = j.at("batch").get<std::size_t>();
  c.steps = j.at("steps").get<std::size_t>();
  c.lr = j.at("lr").get<double>();
  c.warmup = j.at("warmup").get<std::size_t>();
  c.beta1 = j.at("betas").at(0).get<double>();
  c.beta2 = j.at("betas").at(1).get<double>();
  c.weight_decay = j.at("weight_decay").get<double>();
  c.seed = j.at("seed").get<std::uint64_t>();
  c.eval_every = j.at("eval_every").get<std::size_t>();
  c.eval_batch = j.at("eval_batch").get<std::size_t>();
  c.symmetric_heads = j.at("init").get<std::string>() == "symmetric";
  return c;
}

}  // namespace

RecordedRun parse_train_trace(std::string_view text) {
  try {
    const json j = json::parse(text);
    RecordedRun run;
    run.config = config_of(j.at("config"));
    TrainResult& r = run.result;
    r.model.config = run.config.model;
    r.model.layout = gpt::gpt_layout(run.config.model);
    r.loss_curve = j.at("loss_curve").get<std::vector<double>>();
    for (const json& e : j.at("evals")) {
      Evaluation ev;
      ev.step = e.at("step").get<std::size_t>();
      ev.loss = e.at("loss").get<double>();
      ev.repeat_loss = e.at("repeat_loss").get<double>();
      ev.accuracy = e.at("accuracy").get<double>();
      ev.scores = {matrix_of(e.at("prev_token_score")), matrix_of(e.at("first_token_score")),
                   matrix_of(e.at("self_score")), matrix_of(e.at("induction_score"))};
      r.evals.push_back(std::move(ev));
    }
    const json& a = j.at("attention_final");
    r.final_attention = Tensor(a.at("shape").get<Shape>(), a.at("data").get<std::vector<double>>());
    r.pattern_tokens = j.at("pattern_tokens").get<std::vector<int>>();
    if (j.contains("clone_gap")) r.clone_gap = j.at("clone_gap").get<std::vector<double>>();
    if (r.loss_curve.size() != run.config.steps || r.evals.empty())
      throw std::runtime_error("train trace: loss curve or evaluations do not match the steps");
    return run;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("train trace: ") + e.what());
  }
}

RecordedRun bundled_train_run(std::string_view path) {
  auto text = embedded_file(path);
  if (!text) throw std::logic_error("data/" + std::string(path) + " is not bundled");
  return parse_train_trace(*text);
}

}  // namespace attn::train
