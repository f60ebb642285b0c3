#include "core/ordered_pool.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/cpus.h"

namespace frontier {

size_t RunOrdered(size_t count, const OrderedPoolOptions& options, const std::function<void(size_t)>& run,
                  const std::function<bool(size_t)>& deliver, const std::function<bool()>& stop) {
  const auto stopped = [&] { return stop && stop(); };
  unsigned threads = options.threads > 0 ? options.threads : UsableCpus();
  threads = static_cast<unsigned>(std::min<size_t>(threads, count));
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) {
      if (stopped()) return i;
      run(i);
      if (!deliver(i)) return i + 1;
    }
    return count;
  }
  const size_t window = options.window > 0 ? options.window : 2 * static_cast<size_t>(threads);

  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> done(count, 0);  // guarded by mu, as the three below
  size_t next = 0;                   // the next job to start
  size_t delivered = 0;              // jobs delivered
  bool halt = false;                 // start no more jobs
  auto work = [&] {
    for (;;) {
      size_t i = 0;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return halt || next >= count || next < delivered + window; });
        if (halt || next >= count) return;
        if (stopped()) {
          halt = true;
          cv.notify_all();
          return;
        }
        i = next++;
      }
      run(i);
      {
        std::lock_guard<std::mutex> lock(mu);
        done[i] = 1;
      }
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);

  size_t i = 0;
  for (; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      // Job i is done, or will never start (stopped before it).
      cv.wait(lock, [&] { return done[i] != 0 || (halt && i >= next); });
      if (done[i] == 0) break;
    }
    const bool go = deliver(i);
    {
      std::lock_guard<std::mutex> lock(mu);
      delivered = i + 1;
      if (!go) halt = true;
    }
    cv.notify_all();
    if (!go) {
      ++i;
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    halt = true;
  }
  cv.notify_all();
  for (std::thread& t : pool) t.join();
  return i;
}

}  // namespace frontier
