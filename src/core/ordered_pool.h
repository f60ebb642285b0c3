// ordered_pool.h: independent jobs run on several threads, their results
// taken in order. Job i runs on one of up to `threads` threads; deliver(i)
// runs on the calling thread, in index order, as soon as job i and every job
// before it are done. So the results come out as one thread would give them
// (a concurrency sweep's points, a plan's simulated points), in a fraction of
// the time.
//
//   std::vector<Outcome> slots(n);
//   size_t delivered = RunOrdered(n, {.threads = 0},
//                                 [&](size_t i) { slots[i] = Run(i); },
//                                 [&](size_t i) { return Store(slots[i]); });
//
// At most `window` jobs past the next one to deliver are started, so a slow
// early job does not leave every later result waiting in memory. deliver
// returning false, or stop() becoming true, starts no further job; the jobs
// already started finish, and after a stop are delivered, after a false are
// not.
//
// Thread safety: `run` must be safe to call from several threads at once on
// different indices; `deliver` and `stop` are called from the calling thread
// (stop also from the workers, so it must be safe to call from any thread).
#pragma once

#include <cstddef>
#include <functional>

namespace frontier {

struct OrderedPoolOptions {
  unsigned threads = 0;  // 0: the machine's hardware threads; 1: on the calling thread, job then delivery
  size_t window = 0;     // jobs started beyond the next to deliver; 0: twice the threads
};

// Runs run(0..count-1) and deliver(i) as above. Returns how many jobs were
// delivered (count, unless deliver returned false or stop() held).
size_t RunOrdered(size_t count, const OrderedPoolOptions& options, const std::function<void(size_t)>& run,
                  const std::function<bool(size_t)>& deliver, const std::function<bool()>& stop = {});

}  // namespace frontier
