// Reading back what `attnlab train --save` wrote (see trained_gpt.h).
#include "trained_gpt.h"

#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "errors.h"
#include "safetensors.h"

namespace attn {

namespace {

nlohmann::json parse(std::string_view text, const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", "{}"}});
  return j;
}

// A non-negative whole number or a real under `key` (of `j`, in `file`).
std::size_t count(const nlohmann::json& j, const char* key, const std::string& file) {
  if (!j.contains(key) || !j[key].is_number_unsigned())
    throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", key}});
  return j[key].get<std::size_t>();
}
double real(const nlohmann::json& j, const char* key, const std::string& file) {
  if (!j.contains(key) || !j[key].is_number()) throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", key}});
  return j[key].get<double>();
}

gpt::GptConfig model_config(const nlohmann::json& j, const std::string& file) {
  gpt::GptConfig c;
  c.vocab = count(j, "vocab_size", file);
  c.n_positions = count(j, "n_positions", file);
  c.d_model = count(j, "n_embd", file);
  c.n_layer = count(j, "n_layer", file);
  c.n_head = count(j, "n_head", file);
  if (!j.contains("attnlab_attention_only") || !j["attnlab_attention_only"].is_boolean())
    throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", "attnlab_attention_only"}});
  c.mlp = !j["attnlab_attention_only"].get<bool>();
  // Sizes a trained model of ours can have (the CLI's caps are far below these).
  if (c.vocab < 2 || c.n_positions < 1 || c.n_layer < 1 || c.n_head < 1 || c.d_model % c.n_head != 0 ||
      gpt::gpt_param_count(c) > 1e8)
    throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", "n_embd"}});
  return c;
}

// The weights, tensor by tensor in the trainer's layout, from the safetensors bytes.
std::vector<double> weights(const gpt::GptLayout& g, std::string_view bytes, const std::string& file) {
  if (bytes.size() < 8) throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", "header"}});
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8) throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", "header"}});
  const std::size_t start = 8 + static_cast<std::size_t>(n);
  std::map<std::string, TensorEntry> entries =
      parse_safetensors_header(std::string(bytes.substr(8, static_cast<std::size_t>(n))), bytes.size() - start, file);
  std::vector<double> p(g.total, 0.0);
  for (const gpt::ParamTensor& t : g.tensors) {
    auto it = entries.find(t.name);
    if (it == entries.end()) throw UsageError("checkpoint.err.missing", {{"file", file}, {"tensor", t.name}});
    const TensorEntry& e = it->second;
    if (e.dtype != DType::F32 && e.dtype != DType::F64)
      throw UsageError("checkpoint.err.dtype", {{"file", file}, {"tensor", t.name}, {"dtype", dtype_name(e.dtype)}});
    if (e.shape != t.shape)
      throw UsageError("checkpoint.err.shape",
                       {{"file", file}, {"tensor", t.name}, {"shape", shape_str(e.shape)}, {"expected", shape_str(t.shape)}});
    const char* at = bytes.data() + start + e.begin;  // inside the file: the header was checked
    for (std::size_t i = 0; i < t.size; ++i) {
      if (e.dtype == DType::F32) {
        float f;
        std::memcpy(&f, at + 4 * i, 4);
        p[t.offset + i] = f;
      } else {
        std::memcpy(&p[t.offset + i], at + 8 * i, 8);
      }
    }
  }
  return p;
}

}  // namespace

TrainedGpt read_trained_gpt(std::string_view config_json, std::string_view safetensors, std::string_view training_json,
                            const std::string& where) {
  const std::string cfg_file = where + "/config.json", log_file = where + "/training.json";
  nlohmann::json j = parse(config_json, cfg_file);
  TrainedGpt r;
  gpt::GptConfig c = model_config(j, cfg_file);
  gpt::GptLayout layout = gpt::gpt_layout(c);
  r.model = gpt::Gpt{c, layout, weights(layout, safetensors, where + "/model.safetensors")};
  if (!j.contains("attnlab_task") || !j["attnlab_task"].is_string() || !j.contains("attnlab_train") ||
      !j["attnlab_train"].is_object())
    throw UsageError("checkpoint.err.config_value", {{"file", cfg_file}, {"key", "attnlab_train"}});
  r.task = j["attnlab_task"].get<std::string>();
  const nlohmann::json& t = j["attnlab_train"];
  r.batch = count(t, "batch", cfg_file);
  r.steps = count(t, "steps", cfg_file);
  r.warmup = count(t, "warmup", cfg_file);
  r.lr = real(t, "lr", cfg_file);
  r.weight_decay = real(t, "weight_decay", cfg_file);
  r.seed = count(t, "seed", cfg_file);
  if (!t.contains("betas") || !t["betas"].is_array() || t["betas"].size() != 2 || !t["betas"][0].is_number() ||
      !t["betas"][1].is_number())
    throw UsageError("checkpoint.err.config_value", {{"file", cfg_file}, {"key", "betas"}});
  r.beta1 = t["betas"][0].get<double>();
  r.beta2 = t["betas"][1].get<double>();
  if (t.contains("repeat_share")) r.repeat_share = real(t, "repeat_share", cfg_file);

  nlohmann::json log = parse(training_json, log_file);
  if (!log.contains("loss_curve") || !log["loss_curve"].is_array() || log["loss_curve"].size() != r.steps)
    throw UsageError("checkpoint.err.config_value", {{"file", log_file}, {"key", "loss_curve"}});
  for (const auto& x : log["loss_curve"]) {
    if (!x.is_number()) throw UsageError("checkpoint.err.config_value", {{"file", log_file}, {"key", "loss_curve"}});
    r.loss_curve.push_back(x.get<double>());
  }
  if (!log.contains("evals") || !log["evals"].is_array() || log["evals"].empty())
    throw UsageError("checkpoint.err.config_value", {{"file", log_file}, {"key", "evals"}});
  for (const auto& e : log["evals"]) {
    if (!e.is_object()) throw UsageError("checkpoint.err.config_value", {{"file", log_file}, {"key", "evals"}});
    r.evals.push_back({count(e, "step", log_file), real(e, "loss", log_file), real(e, "repeat_loss", log_file)});
  }
  if (log.contains("text")) {
    if (!log["text"].is_object()) throw UsageError("checkpoint.err.config_value", {{"file", log_file}, {"key", "text"}});
    r.heldout_bpc = real(log["text"], "heldout_bpc", log_file);
    r.bigram_bpc = real(log["text"], "bigram_bpc", log_file);
  }
  return r;
}

std::string_view shipped_trained_file(const std::string& name, const char* leaf) {
  std::optional<std::string_view> f = embedded_file("trained/" + name + "/" + leaf);
  if (!f) throw std::logic_error("data/trained/" + name + "/" + leaf + " is not compiled in");
  return *f;
}

TrainedGpt shipped_trained_gpt(const std::string& name) {
  auto file = [&](const char* leaf) { return shipped_trained_file(name, leaf); };
  return read_trained_gpt(file("config.json"), file("model.safetensors"), file("training.json"), "data/trained/" + name);
}

}  // namespace attn
