#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
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
#ifdef __EMSCRIPTEN__
    return std::size_t{1};  // the book's page: one thread (numbers never depend on the count)
#else
    return std::max<std::size_t>(1, std::thread::hardware_concurrency());
#endif
  }();
  return n;
}

}  // namespace

void set_threads(std::size_t n) { g_threads.store(n, std::memory_order_relaxed); }

std::size_t thread_count() {
  std::size_t n = g_threads.load(std::memory_order_relaxed);
  return n != 0 ? n : default_threads();
}

namespace {

// The worker threads, started once and reused: a training step calls parallel_for about a
// hundred times, and starting a thread for each call cost more than the work of the small ones.
// One parallel loop at a time: a loop started inside a chunk, or from another thread while one
// runs, runs inline (results never depend on how a loop is split, so that is always right).
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // Runs chunk(1) … chunk(chunks − 1) on workers and chunk(0) here; false if the pool is busy.
  bool run(std::size_t chunks, const std::function<void(std::size_t)>& chunk) {
    if (inside_) return false;  // a loop inside a chunk (a worker, or chunk 0 here)
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    inside_ = true;
    struct Leave {
      ~Leave() { inside_ = false; }
    } leave;
    const std::size_t helpers = grow(chunks - 1);
    {
      std::lock_guard<std::mutex> lock(m_);
      chunk_ = &chunk;
      chunks_ = chunks;
      next_ = 1;
      pending_ = chunks - 1;
      ++generation_;
    }
    if (helpers > 0) wake_.notify_all();
    chunk(0);
    for (;;) {  // the calling thread takes chunks too: with no worker it does them all
      std::size_t c;
      {
        std::lock_guard<std::mutex> lock(m_);
        if (next_ >= chunks_) break;
        c = next_++;
      }
      finish(c);
    }
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    chunk_ = nullptr;
    return true;
  }

 private:
  std::size_t grow(std::size_t wanted) {
    while (workers_.size() < wanted) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;  // no more threads: the calling thread does the rest
      }
    }
    return std::min(wanted, workers_.size());
  }

  void finish(std::size_t c) {
    (*chunk_)(c);
    std::lock_guard<std::mutex> lock(m_);
    if (--pending_ == 0) done_.notify_one();
  }

  void work() {
    inside_ = true;
    std::size_t seen = 0;
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (generation_ != seen && next_ < chunks_); });
      if (stop_) return;
      const std::size_t c = next_++;
      if (next_ >= chunks_) seen = generation_;
      lock.unlock();
      finish(c);
      lock.lock();
    }
  }

  std::mutex busy_;  // held by the one running loop
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(std::size_t)>* chunk_ = nullptr;
  std::size_t chunks_ = 0, next_ = 0, pending_ = 0, generation_ = 0;
  bool stop_ = false;
  static thread_local bool inside_;  // this thread runs a chunk
};

thread_local bool Pool::inside_ = false;

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
  if (n == 0) return;
  grain = std::max<std::size_t>(1, grain);
  const std::size_t chunks = std::min(thread_count(), (n + grain - 1) / grain);
  if (chunks <= 1) {
    f(0, n);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  const std::function<void(std::size_t)> chunk = [&](std::size_t c) {
    const std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
    try {
      f(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  if (!pool().run(chunks, chunk))
    for (std::size_t c = 0; c < chunks; ++c) chunk(c);
  if (error) std::rethrow_exception(error);
}

}  // namespace attn
