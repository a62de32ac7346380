#pragma once
// Threads for the hot loops (matmul, softmax, the normal sampler). One global count; every
// parallel loop splits its work so that each output number is computed by exactly the same
// operations in the same order whatever the count, so results never depend on it.
#include <cstddef>
#include <functional>

namespace attn {

// The number of threads parallel loops may use. 0 restores the default: the environment
// variable ATTNLAB_THREADS when it is a whole number from 1 to 1024, else
// std::thread::hardware_concurrency() (at least 1).
void set_threads(std::size_t n);
std::size_t thread_count();

// Runs f(begin, end) over [0, n) split into contiguous chunks of at least `grain` items, one
// chunk per thread (the calling thread takes the first). Runs f(0, n) inline when one chunk
// suffices. Waits for all chunks; rethrows the first exception any chunk threw.
void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f);

}  // namespace attn
