// Every tensor op against values worked out by hand (the working is in the comments).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "attention.h"
#include "tensor.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_tensor {

using namespace attn;
using Catch::Matchers::WithinAbs;

TEST_CASE("matmul multiplies rows by columns", "[tensor]") {
  Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b({3, 2}, {7, 8, 9, 10, 11, 12});
  // row 0: [1·7+2·9+3·11, 1·8+2·10+3·12] = [58, 64]; row 1: [4·7+5·9+6·11, 4·8+5·10+6·12] = [139, 154]
  Tensor c = matmul(a, b);
  CHECK(c.shape == Shape{2, 2});
  CHECK(c.data == std::vector<double>{58, 64, 139, 154});
  // a vector times a matrix: [1, 2, 3] @ b = [58, 64]
  Tensor v = matmul(Tensor({3}, {1, 2, 3}), b);
  CHECK(v.shape == Shape{2});
  CHECK(v.data == std::vector<double>{58, 64});
}

TEST_CASE("matmul names both shapes when they do not fit", "[tensor]") {
  Tensor a({2, 3}), b({2, 2});
  CHECK_THROWS_WITH(matmul(a, b), Catch::Contains("[2, 3]") && Catch::Contains("[2, 2]"));
}

TEST_CASE("transpose, bias, scale, elementwise", "[tensor]") {
  Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(transpose(a).shape == Shape{3, 2});
  CHECK(transpose(a).data == std::vector<double>{1, 4, 2, 5, 3, 6});
  // each row + [10, 20, 30]
  CHECK(add_bias(a, Tensor({3}, {10, 20, 30})).data == std::vector<double>{11, 22, 33, 14, 25, 36});
  // the same sum in the argument's own memory when it is a temporary: its numbers move, no copy
  Tensor moved = a;
  const double* own = moved.data.data();
  Tensor biased = add_bias(std::move(moved), Tensor({3}, {10, 20, 30}));
  CHECK(biased.data == std::vector<double>{11, 22, 33, 14, 25, 36});
  CHECK(biased.data.data() == own);
  CHECK_THROWS(add_bias(Tensor({2, 2}), Tensor({3}, {10, 20, 30})));
  CHECK(scale(a, 0.5).data == std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3});
  CHECK(hadamard(a, a).data == std::vector<double>{1, 4, 9, 16, 25, 36});
  CHECK(sub(a, a).data == std::vector<double>(6, 0.0));
  CHECK(max_abs_diff(a, scale(a, 2.0)) == 6.0);  // |6 − 12|
  CHECK_THROWS(add(a, transpose(a)));
}

TEST_CASE("softmax of a row: exp(x − max) / sum", "[tensor]") {
  // [0, ln 2, ln 3] -> exp = [1, 2, 3] / 6
  Tensor s({1, 3}, {0.0, std::log(2.0), std::log(3.0)});
  Tensor w = softmax_rows(s);
  CHECK_THAT(w.data[0], WithinAbs(1.0 / 6.0, 1e-15));
  CHECK_THAT(w.data[1], WithinAbs(2.0 / 6.0, 1e-15));
  CHECK_THAT(w.data[2], WithinAbs(3.0 / 6.0, 1e-15));
  // stable for huge scores: [1000, 1000] -> [0.5, 0.5], no overflow
  Tensor big = softmax_rows(Tensor({2}, {1000.0, 1000.0}));
  CHECK(big.data == std::vector<double>{0.5, 0.5});
}

TEST_CASE("causal mask: masked weights are exactly 0", "[tensor]") {
  Tensor s({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor m = causal_mask(s);
  double inf = std::numeric_limits<double>::infinity();
  CHECK(m.data == std::vector<double>{1, -inf, -inf, 4, 5, -inf, 7, 8, 9});
  Tensor w = softmax_rows(m);
  CHECK(w(0, 0) == 1.0);  // the first token sees only itself
  CHECK(w(0, 1) == 0.0);
  CHECK(w(0, 2) == 0.0);
  CHECK(w(1, 2) == 0.0);
  // row 1: [4, 5] -> [1, e] / (1 + e)
  CHECK_THAT(w(1, 1), WithinAbs(std::exp(1.0) / (1.0 + std::exp(1.0)), 1e-15));
  // a fully masked row is a bug, not a silent NaN
  CHECK_THROWS(softmax_rows(Tensor({2}, {-inf, -inf})));
}

TEST_CASE("split and merge heads are column blocks", "[tensor]") {
  // x (T=2, H*Dh=4) with H = 2: head 0 = columns 0-1, head 1 = columns 2-3
  Tensor x({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor h = split_heads(x, 2);
  CHECK(h.shape == Shape{2, 2, 2});
  CHECK(h.data == std::vector<double>{1, 2, 5, 6, 3, 4, 7, 8});
  CHECK(merge_heads(h).data == x.data);
  CHECK(col_block(x, 1, 2).data == std::vector<double>{3, 4, 7, 8});
  CHECK(row_block(x, 1, 1).data == std::vector<double>{5, 6, 7, 8});
  CHECK(concat_cols({col_block(x, 0, 2), col_block(x, 1, 2)}).data == x.data);
  CHECK(slice0(h, 1).data == std::vector<double>{3, 4, 7, 8});
  // head 0 [1, 2, 5, 6] against head 1 [3, 4, 7, 8]: every entry differs by 2
  CHECK(slices_max_abs_diff(h, 0, 1) == 2.0);
  CHECK(slices_max_abs_diff(Tensor({2, 3}, {1, 2, 3, 1, 7, 3}), 1, 0) == 5.0);  // |7 − 2|
  CHECK(slices_max_abs_diff(h, 1, 1) == 0.0);
  CHECK_THROWS(slices_max_abs_diff(h, 0, 2));
  CHECK_THROWS(split_heads(x, 3));  // 4 columns do not split into 3 heads
}

TEST_CASE("repeat_kv: query head i reads group i / (H / G)", "[tensor]") {
  // G = 2 groups of (T=1, Dh=1): [10], [20]; H = 4 -> heads read groups 0, 0, 1, 1
  Tensor kv({2, 1, 1}, {10, 20});
  CHECK(repeat_kv(kv, 4).data == std::vector<double>{10, 10, 20, 20});
  CHECK_THROWS(repeat_kv(kv, 3));
}

TEST_CASE("activations at hand-computed points", "[tensor]") {
  // GELU(1) = 0.5 (1 + erf(1/√2)) = 0.5 · 1.682689492137086 = 0.8413447460685429
  CHECK_THAT(gelu(1.0), WithinAbs(0.8413447460685429, 1e-15));
  CHECK(gelu(0.0) == 0.0);
  // tanh form at 1: 0.5 (1 + tanh(0.7978845608 · 1.044715)) = 0.8411919906082768
  CHECK_THAT(gelu_tanh(1.0), WithinAbs(0.8411919906082768, 1e-12));
  // SiLU(1) = 1 / (1 + e^-1) = 0.7310585786300049
  CHECK_THAT(silu(1.0), WithinAbs(0.7310585786300049, 1e-15));
  CHECK(relu(-2.0) == 0.0);
  CHECK(relu(2.5) == 2.5);
  CHECK(sigmoid(-1000.0) == 0.0);  // no overflow for large negative inputs
  CHECK(sigmoid(1000.0) == 1.0);
}

TEST_CASE("attention by hand: two tokens, d_k = 1", "[tensor][attention]") {
  // Q = [[1], [0]], K = [[1], [1]], V = [[2], [4]]
  // scores = Q Kᵀ / 1 = [[1, 1], [0, 0]] -> weights = [[.5, .5], [.5, .5]] -> output = [[3], [3]]
  Tensor Q({2, 1}, {1, 0}), K({2, 1}, {1, 1}), V({2, 1}, {2, 4});
  Tensor w = softmax_rows(attention_scores(Q, K));
  CHECK(w.data == std::vector<double>{0.5, 0.5, 0.5, 0.5});
  CHECK(matmul(w, V).data == std::vector<double>{3, 3});
  // d_k = 4 divides by √4 = 2: q = [1,1,1,1], k = [1,1,1,1] -> 4 / 2 = 2
  Tensor q({1, 4}, {1, 1, 1, 1});
  CHECK(attention_scores(q, q).data == std::vector<double>{2.0});
}

TEST_CASE("attention parameter counts", "[tensor][attention]") {
  // the chapter: 4 · 768² = 2,359,296
  CHECK(attention_param_count(768, 12, 12, 64) == 2359296);
  // GQA with 4 KV heads: 2·768·768 + 2·768·4·64 = 1,179,648 + 393,216 = 1,572,864
  CHECK(attention_param_count(768, 12, 4, 64) == 1572864);
}

TEST_CASE("a large tensor's numbers start on a whole huge page", "[tensor]") {
  // 1024 x 768 numbers are 6 MiB: three whole 2 MiB pages, not two ends on 4 KiB pages. A build
  // that keeps the system's allocator (a sanitizer, not glibc) says so with alignment 0.
  const std::size_t align = large_block_alignment();
  CHECK((align == 0 || align == std::size_t{2} << 20));
  for (Shape shape : {Shape{1024, 768}, Shape{262144}, Shape{3, 1000, 1001}}) {
    Tensor t(shape);
    if (align != 0) CHECK(reinterpret_cast<std::uintptr_t>(t.data.data()) % align == 0);
    CHECK(std::all_of(t.data.begin(), t.data.end(), [](double v) { return v == 0.0; }));
  }
  std::vector<double> small(100, 1.0);  // under 2 MiB: the ordinary allocator
  CHECK(small[99] == 1.0);
}

TEST_CASE("checked sizes never wrap", "[tensor]") {
  CHECK(checked_numel({4, 8}) == 32);
  CHECK(checked_numel({std::size_t{1} << 40, std::size_t{1} << 40}) == 0);
  CHECK_THROWS(Tensor({std::size_t{1} << 40, std::size_t{1} << 40}));
}

}  // namespace file_test_tensor
