#include "chapter_data.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "embedded_data.h"

namespace attn {

namespace {

nlohmann::json load(const char* path) {
  auto text = embedded_file(path);
  if (!text) throw std::logic_error(std::string("data/") + path + " is not bundled");
  return nlohmann::json::parse(*text);
}

ChapterFfn load_chapter_ffn() {
  nlohmann::json j = load("chapter/ffn_walkthrough.json");
  ChapterFfn ch;
  ch.d_model = j.at("d_model").get<std::size_t>();
  ch.d_ff = j.at("d_ff").get<std::size_t>();
  ch.x = j.at("x").get<std::vector<double>>();
  ch.z_printed = j.at("z_printed").get<std::vector<double>>();
  ch.h_printed = j.at("h_printed").get<std::vector<double>>();
  ch.h_decimals = j.at("h_decimals").get<int>();
  ch.output_printed = j.at("output_printed").get<std::vector<double>>();
  if (ch.x.size() != ch.d_model || ch.z_printed.size() != ch.h_printed.size())
    throw std::logic_error("data/chapter/ffn_walkthrough.json: sizes disagree");
  return ch;
}

PlantedMemory load_planted_memory() {
  nlohmann::json j = load("kv_memory/paris.json");
  PlantedMemory p;
  p.features = j.at("features").get<std::vector<std::string>>();
  p.slot = j.at("slot").get<std::size_t>();
  p.key = j.at("key").get<std::vector<double>>();
  p.bias = j.at("bias").get<double>();
  p.value = j.at("value").get<std::vector<double>>();
  for (const auto& in : j.at("inputs"))
    p.inputs.push_back({in.at("id").get<std::string>(), in.at("x").get<std::vector<double>>()});
  auto kf = j.at("key_features").get<std::vector<std::size_t>>();
  p.answer = j.at("answer_feature").get<std::size_t>();
  std::size_t D = p.features.size();
  if (kf.size() != 2 || kf[0] >= D || kf[1] >= D || p.answer >= D)
    throw std::logic_error("data/kv_memory/paris.json: bad key_features or answer_feature");
  p.feature_a = kf[0];
  p.feature_b = kf[1];
  if (p.key.size() != D || p.value.size() != D || p.inputs.size() != 2 || p.inputs[0].x.size() != D ||
      p.inputs[1].x.size() != D)
    throw std::logic_error("data/kv_memory/paris.json: vector sizes disagree");
  return p;
}

}  // namespace

const ChapterFfn& chapter_ffn() {
  static const ChapterFfn ch = load_chapter_ffn();
  return ch;
}

const PlantedMemory& planted_memory() {
  static const PlantedMemory m = load_planted_memory();
  return m;
}

}  // namespace attn
