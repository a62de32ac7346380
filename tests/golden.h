#pragma once
// Compare a lesson's trace against a golden fixture written by an independent numpy
// implementation (tests/golden/gen_*.py). Like llm.c's test: per tensor, OK / NOT OK and the
// max difference; a masked -inf score is null in the fixture and must be -inf in the trace.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "trace.h"

inline nlohmann::json load_golden(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/" + name + ".json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// Every tensor of the fixture must be in the trace, same shape, values within tol.
inline void check_golden(const attn::Trace& trace, const std::string& name, double tol = 1e-12) {
  nlohmann::json g = load_golden(name);
  REQUIRE(!g["tensors"].empty());
  for (auto& [tname, expected] : g["tensors"].items()) {
    INFO("fixture " << name << ", tensor " << tname);
    REQUIRE(trace.tensors.count(tname) == 1);
    const attn::Tensor& t = trace.at(tname).tensor;
    REQUIRE(t.shape == expected["shape"].get<attn::Shape>());
    const auto& data = expected["data"];
    REQUIRE(data.size() == t.numel());
    double max_diff = 0.0;
    for (std::size_t i = 0; i < t.numel(); ++i) {
      if (data[i].is_null()) {
        CHECK((std::isinf(t.data[i]) && t.data[i] < 0));
        continue;
      }
      max_diff = std::max(max_diff, std::fabs(t.data[i] - data[i].get<double>()));
    }
    UNSCOPED_INFO(tname << (max_diff <= tol ? " OK " : " NOT OK ") << "max diff " << max_diff);
    CHECK(max_diff <= tol);
  }
}
