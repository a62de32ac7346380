// attnlab's own elementary functions (src/base/libm.h): values by hand, the golden fixture of
// exact values (tests/golden/gen_libm.py, Python's decimal at 120 digits), and millions of
// arguments against the C library (a second, independent implementation).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libm.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_libm {

namespace lm = attn::libm;

// |got − want| in units of the last place of want (the spacing of doubles at |want|; for a
// subnormal or zero want, the smallest subnormal)
double ulps(double got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e300;
  if (std::isinf(want)) return got == want ? 0.0 : 1e300;
  const double a = std::fabs(want);
  const double ulp = a < 0x1p-1022 ? 0x1p-1074 : std::ldexp(1.0, std::ilogb(a) - 52);
  return std::fabs(got - want) / ulp;
}

double call(const std::string& f, double x, double y) {
  if (f == "exp") return lm::exp(x);
  if (f == "expm1") return lm::expm1(x);
  if (f == "log") return lm::log(x);
  if (f == "log10") return lm::log10(x);
  if (f == "sin") return lm::sin(x);
  if (f == "cos") return lm::cos(x);
  if (f == "tanh") return lm::tanh(x);
  if (f == "erf") return lm::erf(x);
  if (f == "pow") return lm::pow(x, y);
  FAIL("unknown function " << f);
  return 0;
}

// the bound each function is held to, in ulps of the exact value
double bound(const std::string& f) { return f == "exp" || f == "log" || f == "sin" || f == "cos" ? 1.0 : 2.0; }

TEST_CASE("libm by hand: exact values, special values, signs", "[libm]") {
  CHECK(lm::exp(0.0) == 1.0);
  CHECK(lm::exp(-0.0) == 1.0);
  CHECK(lm::exp(1.0) == 0x1.5bf0a8b145769p+1);  // e, the nearest double
  CHECK(lm::exp(710.0) == INFINITY);
  CHECK(lm::exp(-746.0) == 0.0);
  CHECK(lm::exp(-INFINITY) == 0.0);
  CHECK(std::isnan(lm::exp(NAN)));
  CHECK(lm::exp(-745.0) == 0x1p-1074);  // e^−745 = 4.94e−324: the smallest subnormal
  CHECK(lm::log(1.0) == 0.0);
  CHECK(lm::log(2.0) == 0x1.62e42fefa39efp-1);  // ln 2
  CHECK(lm::log(0.0) == -INFINITY);
  CHECK(std::isnan(lm::log(-1.0)));
  CHECK(lm::log(INFINITY) == INFINITY);
  CHECK(lm::log(0x1p-1074) == -0x1.74385446d71c3p+9);  // −744.44…
  for (int k = -20; k <= 22; ++k) CHECK(lm::log10(std::strtod(fmt::format("1e{}", k).c_str(), nullptr)) == k);
  CHECK(lm::sin(0.0) == 0.0);
  CHECK(std::signbit(lm::sin(-0.0)));
  CHECK(lm::cos(0.0) == 1.0);
  CHECK(std::isnan(lm::sin(INFINITY)));
  CHECK(lm::sin(-1.0) == -lm::sin(1.0));
  CHECK(lm::cos(-1.0) == lm::cos(1.0));
  CHECK(lm::tanh(0.0) == 0.0);
  CHECK(lm::tanh(30.0) == 1.0);
  CHECK(lm::tanh(-INFINITY) == -1.0);
  CHECK(lm::tanh(-0.5) == -lm::tanh(0.5));
  CHECK(lm::erf(0.0) == 0.0);
  CHECK(lm::erf(INFINITY) == 1.0);
  CHECK(lm::erf(-7.0) == -1.0);
  CHECK(lm::erf(-0.3) == -lm::erf(0.3));
  CHECK(lm::expm1(1e-300) == 1e-300);
  CHECK(lm::expm1(-50.0) == -1.0);
  CHECK(lm::pow(2.0, 10.0) == 1024.0);
  CHECK(lm::pow(10.0, -2.0) == 0.01);
  CHECK(lm::pow(-2.0, 3.0) == -8.0);
  CHECK(std::isnan(lm::pow(-2.0, 0.5)));
  CHECK(lm::pow(0.0, 2.0) == 0.0);
  CHECK(lm::pow(0.0, -1.0) == INFINITY);
  CHECK(lm::pow(5.0, 0.0) == 1.0);
  CHECK(lm::pow(0.5, INFINITY) == 0.0);
  CHECK(lm::pow(2.0, 1024.0) == INFINITY);
  // the float versions are the double function rounded once
  CHECK(lm::exp(1.0f) == static_cast<float>(lm::exp(1.0)));
  CHECK(lm::tanh(0.25f) == static_cast<float>(lm::tanh(0.25)));
}

TEST_CASE("libm against exact values (golden fixture, 120 digits)", "[libm][golden]") {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/libm.json");
  REQUIRE(in.good());
  const nlohmann::json fixture = nlohmann::json::parse(in);
  REQUIRE(fixture["cases"].size() > 3000);
  std::map<std::string, double> worst;
  std::map<std::string, int> count, exact;
  for (const auto& c : fixture["cases"]) {
    const std::string f = c["f"];
    const double x = std::strtod(c["x"].get<std::string>().c_str(), nullptr);
    const double y = c.contains("y") ? std::strtod(c["y"].get<std::string>().c_str(), nullptr) : 0.0;
    const double want = std::strtod(c["want"].get<std::string>().c_str(), nullptr);
    const double got = call(f, x, y);
    const double e = ulps(got, want);
    INFO(fmt::format("{}({:a}{}) = {:a}, exact {:a}: {:.2f} ulp", f, x, c.contains("y") ? fmt::format(", {:a}", y) : "", got,
                     want, e));
    CHECK(e <= bound(f));
    worst[f] = std::max(worst[f], e);
    ++count[f];
    exact[f] += got == want;
  }
  for (const auto& [f, e] : worst)
    WARN(fmt::format("{}: {} cases, worst {:.2f} ulp, correctly rounded {}", f, count[f], e, exact[f]));
  CHECK(count.size() == 9);
}

// A quick generator of doubles in [lo, hi) (SplitMix64)
struct Draw {
  std::uint64_t s = 12345;
  double operator()(double lo, double hi) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1p-53;
  }
};

TEST_CASE("libm against the C library on a million arguments each", "[libm]") {
  // The C library is within about half an ulp of the exact value, ours within one (two): the two
  // may differ by the sum.
  Draw draw;
  auto check = [&](const char* name, auto ours, auto theirs, double lo, double hi, double limit) {
    double worst = 0;
    int differ = 0;
    for (int i = 0; i < 1000000; ++i) {
      const double x = draw(lo, hi);
      const double e = ulps(ours(x), theirs(x));
      if (e > 0) ++differ;
      if (e > worst) worst = e;
      if (e > limit) {
        FAIL_CHECK(fmt::format("{}({:a}): ours {:a}, C library {:a}, {:.2f} ulp apart", name, x, ours(x), theirs(x), e));
        return;
      }
    }
    CHECK(worst <= limit);
    WARN(fmt::format("{} on [{}, {}): worst {:.2f} ulp, {} of 1000000 differ from the C library", name, lo, hi, worst,
                     differ));
  };
  check("exp", [](double x) { return lm::exp(x); }, [](double x) { return std::exp(x); }, -745.0, 709.0, 1.5);
  check("exp", [](double x) { return lm::exp(x); }, [](double x) { return std::exp(x); }, -30.0, 0.0, 1.5);
  check("log", [](double x) { return lm::log(x); }, [](double x) { return std::log(x); }, 0.0, 1.0, 1.5);
  check("log", [](double x) { return lm::log(x); }, [](double x) { return std::log(x); }, 0.5, 2.0, 1.5);
  check("log", [](double x) { return lm::log(x); }, [](double x) { return std::log(x); }, 1.0, 1e300, 1.5);
  check("log10", [](double x) { return lm::log10(x); }, [](double x) { return std::log10(x); }, 1e-6, 1e9, 2.5);
  check("sin", [](double x) { return lm::sin(x); }, [](double x) { return std::sin(x); }, 0.0, 6.2831853071795862, 1.5);
  check("cos", [](double x) { return lm::cos(x); }, [](double x) { return std::cos(x); }, 0.0, 6.2831853071795862, 1.5);
  check("sin", [](double x) { return lm::sin(x); }, [](double x) { return std::sin(x); }, -3e6, 3e6, 1.5);
  // far arguments, log-uniform: x = 2^t for t in [20, 1000)
  check("cos", [](double t) { return lm::cos(std::exp2(t)); }, [](double t) { return std::cos(std::exp2(t)); }, 20.0, 1000.0, 1.5);
  check("sin", [](double t) { return lm::sin(-std::exp2(t)); }, [](double t) { return std::sin(-std::exp2(t)); }, 20.0, 1000.0, 1.5);
  check("tanh", [](double x) { return lm::tanh(x); }, [](double x) { return std::tanh(x); }, -6.0, 6.0, 3.5);
  check("expm1", [](double x) { return lm::expm1(x); }, [](double x) { return std::expm1(x); }, -3.0, 3.0, 2.5);
  check("erf", [](double x) { return lm::erf(x); }, [](double x) { return std::erf(x); }, -6.5, 6.5, 2.5);
  check("pow", [](double x) { return lm::pow(x, -0.37); }, [](double x) { return std::pow(x, -0.37); }, 1e-3, 1e5, 2.5);
  check("pow", [](double x) { return lm::pow(10000.0, -x); }, [](double x) { return std::pow(10000.0, -x); }, 0.0, 1.0, 2.5);
}

TEST_CASE("libm's branch-free batches give log's and sincos's bits", "[libm]") {
  // Box–Muller's arguments: u1 = k·2^-53 in (0, 1], θ = 2π·u for u = k·2^-53 in [0, 1), and the edges
  Draw draw;
  std::vector<double> u, theta;
  for (int i = 0; i < 200000; ++i) {
    u.push_back(std::ldexp(std::floor(draw(1.0, 0x1p53)), -53));
    theta.push_back(2.0 * M_PI * std::ldexp(std::floor(draw(0.0, 0x1p53)), -53));
  }
  for (double x : {0x1p-53, 0x1p-52, 0.5, 0.70710678118654757, 0.70710678118654746, 1.0 - 0x1p-53, 1.0}) u.push_back(x);
  for (double x : {0.0, 0x1p-53 * 2.0 * M_PI, 1e-9, 0x1p-27, 0.78539816339744828, 0.78539816339744839, 1.5707963267948966,
                   3.1415926535897931, 4.71238898038469, 6.2831853071795862, 1e5, 0x1.7fffffp20})
    theta.push_back(x);
  std::vector<double> lg(u.size()), s(theta.size()), c(theta.size());
  attn::libm::log_batch(u.data(), lg.data(), u.size());
  attn::libm::sincos_batch(theta.data(), s.data(), c.data(), theta.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double l1 = lm::detail::log_atanh(u[i]);  // Box–Muller keeps log's atanh form: the same draws as before
    differ += std::memcmp(&lg[i], &l1, 8) != 0;
  }
  for (std::size_t i = 0; i < theta.size(); ++i) {
    double s1, c1;
    lm::sincos(theta[i], s1, c1);
    differ += std::memcmp(&s[i], &s1, 8) != 0;
    differ += std::memcmp(&c[i], &c1, 8) != 0;
  }
  CHECK(differ == 0);
  CHECK(u.size() + 2 * theta.size() > 600000);
}

}  // namespace file_test_libm

namespace file_test_libm_fma {

TEST_CASE("log and erf give the same bits through the CPU's fused multiply-add and through the portable body", "[libm]") {
  // log and erf pick a copy compiled for FMA where the CPU has one; the portable body's std::fma
  // (the C library's, software on a CPU without FMA) must round each fused multiply-add the same.
  std::size_t differ = 0, n = 0;
  for (double x = -6.25; x < 6.25; x += 0.0009765625 + 1e-7) {
    const double e1 = attn::libm::erf(x), e2 = attn::libm::detail::erf_body(x);
    differ += std::memcmp(&e1, &e2, 8) != 0;
    const double u = std::fabs(x) + 1e-300;
    const double l1 = attn::libm::log(u), l2 = attn::libm::detail::log_body(u);
    differ += std::memcmp(&l1, &l2, 8) != 0;
    ++n;
  }
  CHECK(n > 10000);
  CHECK(differ == 0);
  // both branches of erf's table-driven polynomials stay within an ulp of the C library's
  CHECK(std::fabs(attn::libm::erf(0.25) - std::erf(0.25)) <= 0x1p-54);
  CHECK(std::fabs(attn::libm::erf(0.765625) - std::erf(0.765625)) <= 0x1p-53);
}

}  // namespace file_test_libm_fma
