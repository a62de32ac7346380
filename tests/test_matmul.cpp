// The fast paths against the plain loops they replace, bit for bit: the matmul kernel (packing,
// micro-tiles, AVX2 or portable, any thread count), the parallel normal sampler, and the JSON
// number formatter.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "matmul.h"
#include "parallel.h"
#include "random.h"
#include "json_writer.h"
#include "run_cli.h"
#include "tensor.h"
#include "trace.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_matmul {

using namespace attn;

namespace {

// Restores the default thread count when a test ends, however it ends.
struct ThreadsGuard {
  ~ThreadsGuard() { set_threads(0); }
};

// Every path of the kernel takes its portable code (std::fma, as on a CPU without FMA) while alive.
struct PortableGuard {
  explicit PortableGuard(bool on) { gemm_force_portable(on); }
  ~PortableGuard() { gemm_force_portable(false); }
};

// Every path a product can take: the plain loop, few rows, the blocked kernel as dispatched
// (AVX-512 here where the CPU has it), the portable and AVX2 micro-kernels.
constexpr GemmPath kPaths[] = {GemmPath::Auto,           GemmPath::Simple,      GemmPath::Blocked,
                               GemmPath::BlockedPortable, GemmPath::BlockedAvx2, GemmPath::FewRows};

// The reference: for i, for j: s = 0; for k: s = fma(a[i,k], b[k,j], s) (one rounding per k).
std::vector<double> plain(const std::vector<double>& a, const std::vector<double>& b, std::size_t M, std::size_t N,
                          std::size_t K) {
  std::vector<double> c(M * N);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k < K; ++k) s = std::fma(a[i * K + k], b[k * N + j], s);
      c[i * N + j] = s;
    }
  return c;
}

// Values with every kind of rounding: wide exponents, signs, some exact zeros and -0.
std::vector<double> awkward(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) {
    std::uint64_t r = rng.next_u64();
    x = rng.normal() * std::ldexp(1.0, static_cast<int>(r % 41) - 20);
    if (r % 37 == 0) x = 0.0;
    if (r % 53 == 0) x = -0.0;
  }
  return v;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

void check_shape(std::size_t M, std::size_t N, std::size_t K) {
  auto a = awkward(M * K, M * 1000003 + K), b = awkward(K * N, N * 7919 + K);
  auto want = plain(a, b, M, N, K);
  for (bool portable : {false, true}) {
    PortableGuard force(portable);
    for (std::size_t threads : {1, 2, 3}) {
      set_threads(threads);
      for (GemmPath path : kPaths) {
        std::vector<double> got(M * N, 12345.0);  // never read: overwritten
        gemm(a.data(), b.data(), got.data(), M, N, K, path);
        INFO("M=" << M << " N=" << N << " K=" << K << " threads=" << threads << " path=" << static_cast<int>(path)
                  << " kernel=" << gemm_kernel_name() << " forced portable=" << portable);
        CHECK(same_bits(got, want));
      }
    }
  }
}

}  // namespace

TEST_CASE("the matmul kernel equals the plain loop bit for bit at awkward shapes", "[matmul]") {
  ThreadsGuard guard;
  std::size_t shapes[][3] = {
      {1, 1, 1},    {7, 13, 11},  {97, 101, 89}, {6, 8, 256},   {5, 7, 257},  {13, 17, 300}, {2, 3, 1},
      {1, 50, 40},  {3, 5, 1000}, {1, 9, 1},     {200, 3, 70},  {4, 300, 20}, {96, 2048, 3}, {97, 2049, 257},
      {12, 11, 10}, {2, 1, 600},  {300, 300, 1}, {61, 29, 513}, {1, 3001, 700}, {3, 1027, 400}, {2, 530, 90},
  };
  for (auto& s : shapes) check_shape(s[0], s[1], s[2]);
}

TEST_CASE("matmul keeps -0, inf and NaN where the plain loop has them", "[matmul]") {
  ThreadsGuard guard;
  std::size_t M = 13, N = 19, K = 23;
  auto a = awkward(M * K, 1), b = awkward(K * N, 2);
  a[5] = std::numeric_limits<double>::infinity();
  b[40] = std::numeric_limits<double>::quiet_NaN();
  a[30] = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < K; ++k) a[7 * K + k] = -0.0;  // row 7: sums of -0 * x from +0.0
  auto want = plain(a, b, M, N, K);
  for (std::size_t threads : {1, 2, 3}) {
    set_threads(threads);
    for (GemmPath path : kPaths) {
      std::vector<double> got(M * N);
      gemm(a.data(), b.data(), got.data(), M, N, K, path);
      CHECK(same_bits(got, want));
    }
  }
}

TEST_CASE("Tensor matmul at real sizes does not depend on the thread count", "[matmul]") {
  ThreadsGuard guard;
  Rng rng(5);
  Tensor a = randn(rng, {130, 200}), b = randn(rng, {200, 70}), v = randn(rng, {200});
  auto want = plain(a.data, b.data, 130, 70, 200);
  auto want_v = plain(v.data, b.data, 1, 70, 200);
  for (std::size_t threads : {1, 2, 3, 7}) {
    set_threads(threads);
    CHECK(same_bits(matmul(a, b).data, want));
    Tensor mv = matmul(v, b);  // rank-1 a is (1, K)
    CHECK(mv.shape == Shape{70});
    CHECK(same_bits(mv.data, want_v));
  }
}

TEST_CASE("matmul refuses K = 0 naming both shapes", "[matmul]") {
  Tensor a, b;
  a.shape = {3, 0};
  b.shape = {0, 4};
  CHECK_THROWS_AS(matmul(a, b), std::invalid_argument);
  CHECK_THROWS_WITH(matmul(a, b), Catch::Contains("[3, 0]") && Catch::Contains("[0, 4]"));
}

TEST_CASE("set_threads and parallel_for cover every index once", "[matmul]") {
  ThreadsGuard guard;
  for (std::size_t threads : {1, 2, 3, 5}) {
    set_threads(threads);
    CHECK(thread_count() == threads);
    std::vector<int> seen(1001, 0);
    parallel_for(seen.size(), 10, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) seen[i] += 1;
    });
    CHECK(std::count(seen.begin(), seen.end(), 1) == 1001);
  }
  set_threads(2);
  CHECK_THROWS_AS(parallel_for(100, 1, [](std::size_t b, std::size_t) {
                    if (b > 0) throw std::runtime_error("chunk");
                  }),
                  std::runtime_error);
  set_threads(0);
  CHECK(thread_count() >= 1);
}

TEST_CASE("transpose, split and merge heads move every number", "[matmul]") {
  Rng rng(3);
  // within one 64 x 64 block and one 8 x 8 tile, across several of each, partial ones at the edges
  for (auto [R, C] : {std::pair<std::size_t, std::size_t>{1, 1}, {37, 45}, {64, 64}, {130, 67}, {8, 200}, {3, 129}}) {
    Tensor x = randn(rng, {R, C});
    Tensor t = transpose(x);
    INFO(R << " x " << C);
    CHECK(t.shape == Shape{C, R});
    bool moved = true;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) moved = moved && t(j, i) == x(i, j);
    CHECK(moved);
  }
  Tensor x = randn(rng, {37, 45});
  bool ok = true;
  Tensor h = split_heads(x, 5);
  CHECK(h.shape == Shape{5, 37, 9});
  for (std::size_t hd = 0; hd < 5; ++hd)
    for (std::size_t r = 0; r < 37; ++r)
      for (std::size_t d = 0; d < 9; ++d) ok = ok && h(hd, r, d) == x(r, hd * 9 + d);
  CHECK(ok);
  CHECK(merge_heads(h).data == x.data);
}

TEST_CASE("matmul_bt is matmul with the second operand transposed, bit for bit", "[matmul]") {
  // a few rows take the dot-product path (4 outputs at a time, then the rest), more rows the
  // transpose and the blocked kernel; both must give matmul(a, transpose(b))'s bits at any thread count
  ThreadsGuard guard;
  Rng rng(17);
  for (std::size_t threads : {1, 2, 3})
    for (std::size_t M : {1, 2, 4, 5, 9})
      for (std::size_t N : {1, 3, 4, 7, 300})
        for (std::size_t K : {1, 2, 17, 100}) {
          set_threads(threads);
          Tensor a = randn(rng, {M, K}), b = randn(rng, {N, K});
          if (M == 2 && K == 2) a.data[0] = -0.0, b.data[0] = 0.0;  // a signed zero product
          Tensor got = matmul_bt(a, b), want = matmul(a, transpose(b));
          INFO(M << " x " << K << " by (" << N << " x " << K << ")^T, " << threads << " threads");
          CHECK(got.shape == Shape{M, N});
          CHECK(std::memcmp(got.data.data(), want.data.data(), want.data.size() * sizeof(double)) == 0);
        }
  CHECK_THROWS(matmul_bt(randn(rng, {2, 3}), randn(rng, {4, 5})));
}

TEST_CASE("the parallel normal fill draws the sequential numbers and leaves the same state", "[random]") {
  ThreadsGuard guard;
  // sizes around the parallel threshold, odd and even, starting with and without a spare
  for (std::size_t n : {1u, 2u, 3u, 16383u, 16384u, 16385u, 50001u, 50002u, 100000u}) {
    for (int pre : {0, 1, 2}) {
      Rng seq(99), par(99);
      for (int i = 0; i < pre; ++i) {
        seq.normal();
        par.normal();
      }
      std::vector<double> want(n);
      for (double& v : want) v = 0.7 * seq.normal();
      for (std::size_t threads : {3u}) {
        set_threads(threads);
        std::vector<double> got(n);
        Rng copy = par;
        copy.fill_normal(got.data(), n, 0.7);
        INFO("n=" << n << " pre=" << pre);
        CHECK(same_bits(got, want));
        // the generator continues exactly as the sequential one would
        Rng after = seq;
        for (int i = 0; i < 5; ++i) CHECK(copy.normal() == after.normal());
        CHECK(copy.next_u64() == after.next_u64());
      }
    }
  }
  set_threads(2);
  Rng a(7), b(7);
  Tensor w = init_weight(a, 300, 200);
  std::vector<double> want(60000);
  for (double& v : want) v = (1.0 / std::sqrt(300.0)) * b.normal();
  CHECK(same_bits(w.data, want));
}

namespace {

// SplitMix64's mixer run backwards, to find a seed whose m-th draw is a chosen output.
std::uint64_t unxorshift(std::uint64_t y, int shift) {
  std::uint64_t x = y;
  for (int i = 0; i < 64 / shift + 1; ++i) x = y ^ (x >> shift);
  return x;
}
std::uint64_t inverse_odd(std::uint64_t c) {  // c * inverse == 1 mod 2^64
  std::uint64_t inv = c;
  for (int i = 0; i < 6; ++i) inv *= 2 - c * inv;
  return inv;
}
std::uint64_t unmix(std::uint64_t y) {
  std::uint64_t z = unxorshift(y, 31) * inverse_odd(0x94D049BB133111EBULL);
  z = unxorshift(z, 27) * inverse_odd(0xBF58476D1CE4E5B9ULL);
  return unxorshift(z, 30);
}

}  // namespace

TEST_CASE("the parallel normal fill matches when a uniform is exactly 0 and is rejected", "[random]") {
  ThreadsGuard guard;
  const std::uint64_t gamma = 0x9E3779B97F4A7C15ULL;
  // draw m (1-based) returns 0, so uniform() is 0.0: make it the u1 of pair 30000
  std::uint64_t m = 2 * 30000 + 1;
  std::uint64_t seed = unmix(0) - m * gamma;
  {
    Rng probe(seed + (m - 1) * gamma);
    CHECK(probe.uniform() == 0.0);
  }
  for (int pre : {0, 1}) {
    Rng seq(seed - static_cast<std::uint64_t>(pre) * 2 * gamma), par = seq;  // pre: start one pair earlier
    std::vector<double> want(100001);
    for (double& v : want) v = 1.5 * seq.normal();
    set_threads(3);
    std::vector<double> got(want.size());
    par.fill_normal(got.data(), got.size(), 1.5);
    CHECK(same_bits(got, want));
    CHECK(par.normal() == seq.normal());
    CHECK(par.next_u64() == seq.next_u64());
  }
}

TEST_CASE("JSON numbers are fmt's shortest round-trip form", "[render]") {
  ThreadsGuard guard;
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.1, 1e-5, 1e-4, 0.00012345, 1e15, 1e16, 123456789012345678.0,
                           5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.30000000000000004, 100.0,
                           -2.5e-7, 3.0e21, 9999999999999998.0, 999999999999999.9, 1e-100, 1e100, 1.5e300,
                           9007199254740992.0, 123456.0, 0.001, 9.99e-5, 1e22, 1e23, 12.5, -0.5, 1234567.125,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  Rng rng(11);
  for (int i = 0; i < 400000; ++i) {
    std::uint64_t bits = rng.next_u64();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (i % 4 == 1) x = rng.normal() * std::ldexp(1.0, i % 60 - 30);
    if (i % 4 == 2) x = std::round(rng.normal() * std::pow(10.0, i % 19));  // whole numbers
    if (i % 4 == 3) x = std::round(rng.normal() * 1e6) * std::pow(10.0, i % 40 - 20);  // few digits
    v.push_back(x);
  }
  std::string want;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) want += ',';
    want += std::isfinite(v[i]) ? fmt::format("{}", v[i]) : "null";
  }
  Recorder r("demo", Lang::En);
  r.step("s", "title", "text");
  r.tensor("x", Tensor({v.size()}, v), "m");
  Trace trace = r.finish();
  for (std::size_t threads : {1, 2, 3}) {
    set_threads(threads);
    std::string json = trace_to_json(trace);
    CHECK(json.find("\"data\":[" + want + "]}") != std::string::npos);
    // the streamed bytes are the string's
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    CHECK(write_trace_json(trace, f));
    std::rewind(f);
    std::string streamed(json.size() + 10, '\0');
    streamed.resize(std::fread(streamed.data(), 1, streamed.size(), f));
    std::fclose(f);
    CHECK(streamed == json);
  }
}

TEST_CASE("a JSON write that fails is reported", "[render]") {
  ThreadsGuard guard;
  // 300,000 numbers are five blocks: at 2 threads three rounds, two of them written by the
  // writer thread while the next round is formatted
  for (std::size_t n : {1000u, 300000u})
    for (std::size_t threads : {1u, 2u}) {
      set_threads(threads);
      std::FILE* full = std::fopen("/dev/full", "wb");
      if (full == nullptr) return;  // not on this system
      Recorder r("demo", Lang::En);
      r.step("s", "title", "text");
      r.tensor("x", Tensor({n}), "m");
      INFO("n=" << n << " threads=" << threads);
      CHECK_FALSE(write_trace_json(r.finish(), full));
      std::fclose(full);
    }
}

TEST_CASE("lesson --json streams the same bytes to a file and to stdout, with any thread count", "[cli]") {
  std::string path = "/tmp/attnlab_test_json_" + std::to_string(::getpid()) + ".json";
  CliResult to_stdout = run_cli("lesson mha --d-model 64 --heads 4 --seq-len 40 --json -", "ATTNLAB_THREADS=1 ");
  CliResult to_file = run_cli("lesson mha --d-model 64 --heads 4 --seq-len 40 --json " + path, "ATTNLAB_THREADS=3 ");
  CHECK(to_stdout.code == 0);
  CHECK(to_file.code == 0);
  CHECK(to_file.out.empty());
  CHECK(slurp(path) == to_stdout.out);
  std::remove(path.c_str());
}

TEST_CASE("lesson --json on a full disk is an error naming the flag and the path", "[cli]") {
  if (std::FILE* f = std::fopen("/dev/full", "wb")) std::fclose(f);
  else return;  // no /dev/full here
  CliResult r = run_cli("lesson mha --json /dev/full");
  CHECK(r.code == 1);  // a failed write is not bad usage (issue 16): exit 1, one line
  CHECK(r.err.find("--json: cannot write to '/dev/full': No space left on device") != std::string::npos);
}

TEST_CASE("the float32 matmul kernel equals the plain float loop bit for bit at awkward shapes", "[matmul]") {
  // train --dtype f32's products: every path, thread count and micro-kernel (6 x 16 floats) gives
  // each output as the plain loop's float sum over k in order. And it is float arithmetic: the same
  // product summed in double and rounded once differs somewhere.
  ThreadsGuard guard;
  std::size_t shapes[][3] = {{1, 1, 1},   {7, 13, 11},   {97, 101, 89}, {6, 16, 256}, {5, 17, 257},
                             {2, 3, 1},   {1, 50, 40},   {200, 3, 70},  {4, 300, 20}, {97, 2049, 257},
                             {61, 29, 513}, {1, 3001, 700}, {2, 530, 90}, {96, 33, 300}};
  bool differs_from_double = false, differs_from_unfused = false;
  for (auto& s : shapes) {
    const std::size_t M = s[0], N = s[1], K = s[2];
    std::vector<double> ad = awkward(M * K, M * 1000003 + K), bd = awkward(K * N, N * 7919 + K);
    std::vector<float> a(ad.begin(), ad.end()), b(bd.begin(), bd.end()), want(M * N);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        float sum = 0.0f, unfused = 0.0f;
        double wide = 0.0;
        for (std::size_t k = 0; k < K; ++k) {
          sum = std::fma(a[i * K + k], b[k * N + j], sum);
          float p = a[i * K + k] * b[k * N + j];
          unfused = unfused + p;
          wide += static_cast<double>(a[i * K + k]) * static_cast<double>(b[k * N + j]);
        }
        want[i * N + j] = sum;
        differs_from_double = differs_from_double || sum != static_cast<float>(wide);
        differs_from_unfused = differs_from_unfused || sum != unfused;
      }
    for (bool portable : {false, true}) {
      PortableGuard force(portable);
      for (std::size_t threads : {1, 2, 3}) {
        set_threads(threads);
        for (GemmPath path : kPaths) {
          std::vector<float> got(M * N, 12345.0f);
          gemm(a.data(), b.data(), got.data(), M, N, K, path);
          INFO("M=" << M << " N=" << N << " K=" << K << " threads=" << threads << " path=" << static_cast<int>(path)
                    << " forced portable=" << portable);
          CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
        }
      }
    }
  }
  CHECK(differs_from_double);
  CHECK(differs_from_unfused);  // the fused order is not the old multiply-then-add one
}

}  // namespace file_test_matmul
