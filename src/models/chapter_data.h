#pragma once
// The chapter's numbers and the lessons' hand-made examples, read from the embedded data/ files
// into plain structs (the lessons parse no JSON). Words are not here: names in these structs are
// ids that the lesson catalogs translate.
#include <cstddef>
#include <string>
#include <vector>

namespace attn {

// Section 3.2 of the chapter, as printed (data/chapter/ffn_walkthrough.json).
struct ChapterFfn {
  std::size_t d_model = 0, d_ff = 0;
  std::vector<double> x;               // (4): the chapter's input
  std::vector<double> z_printed;       // the first entries of z it prints
  std::vector<double> h_printed;       // GELU(z) as it prints them
  int h_decimals = 2;                  // how many decimals it printed
  std::vector<double> output_printed;  // (4): its example output
};
const ChapterFfn& chapter_ffn();

// data/kv_memory/paris.json: one FFN memory planted by hand ("capital of France" -> "Paris").
struct MemoryProbe {
  std::string id;         // "france": the lesson's catalog names it (input.france)
  std::vector<double> x;  // (D)
};
struct PlantedMemory {
  std::vector<std::string> features;  // (D) feature ids: "france", "capital_of", … (catalog: feature.ID)
  std::size_t slot = 0;               // which key (0-based)
  std::vector<double> key;            // (D): column `slot` of W_1
  double bias = 0;                    // b_1[slot]
  std::vector<double> value;          // (D): row `slot` of W_2
  std::vector<MemoryProbe> inputs;    // [0] matches the key, [1] does not
  std::size_t feature_a = 0, feature_b = 0;  // the two features the key looks for (France, capital-of)
  std::size_t answer = 0;                    // the feature its value writes (Paris)
};
const PlantedMemory& planted_memory();

}  // namespace attn
