// parallel.h (internal to sim/fit/): independent tasks run side by side, for
// validation's predictions and calibration's leave-out refits.
//
// Thread safety: RunAll is safe to call from any thread; the tasks must not
// share what they write.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "core/cpus.h"

namespace frontier::sim::internal {

// Runs every task on `threads` threads (0: one per core); each task writes
// only its own output, so the results do not depend on the order or the
// threads.
inline void RunAll(std::vector<std::function<void()>>& tasks, int threads) {
  unsigned n = threads > 0 ? static_cast<unsigned>(threads) : UsableCpus();
  n = std::clamp<unsigned>(n, 1, static_cast<unsigned>(std::max<size_t>(1, tasks.size())));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) tasks[i]();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace frontier::sim::internal
