#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace attn {

namespace {

std::atomic<std::size_t> g_threads{0};  // 0: not set, use the default

std::size_t default_threads() {
  static const std::size_t n = [] {
    if (const char* env = std::getenv("ATTNLAB_THREADS")) {
      char* end = nullptr;
      unsigned long v = std::strtoul(env, &end, 10);
      if (*env >= '0' && *env <= '9' && end != env && *end == '\0' && v >= 1 && v <= 1024)
        return static_cast<std::size_t>(v);
    }
    return std::max<std::size_t>(1, std::thread::hardware_concurrency());
  }();
  return n;
}

}  // namespace

void set_threads(std::size_t n) { g_threads.store(n, std::memory_order_relaxed); }

std::size_t thread_count() {
  std::size_t n = g_threads.load(std::memory_order_relaxed);
  return n != 0 ? n : default_threads();
}

void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
  if (n == 0) return;
  grain = std::max<std::size_t>(1, grain);
  std::size_t chunks = std::min(thread_count(), (n + grain - 1) / grain);
  if (chunks <= 1) {
    f(0, n);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](std::size_t c) {
    std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
    try {
      f(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(chunks - 1);
  std::size_t c = 1;
  for (; c < chunks; ++c) {
    try {
      threads.emplace_back(run, c);
    } catch (const std::system_error&) {
      break;  // no more threads: the calling thread does the rest
    }
  }
  run(0);
  for (std::size_t rest = c; rest < chunks; ++rest) run(rest);
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace attn
