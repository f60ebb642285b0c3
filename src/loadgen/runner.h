// runner.h: the load generator's timing core. Issues a workload to a Target on
// a schedule planned before the run, under a concurrency cap, and collects a
// RunResult.
//
//   auto specs = workload::LoadDataset(dataset_options);
//   auto target = HttpTarget::Create(client_options);  // or sim::SimTarget, any Target
//   RunOptions run;                                    // grace, progress interval
//   Result<RunResult> r = RunLoad(**target, *specs, load, run, &observer, &stop_flag);
//
// Time is the Target's clock(): the steady clock for a server, the
// simulator's virtual clock for a simulated one, so every rule below holds
// alike for both.
//
// Schedule (workload/load.h): warm-up, as MLPerf treats it, is outside the
// timed run: the warm-up requests (the first load.warmup specs) are sent
// first, as fast as the concurrency cap allows, and the measured phase
// starts when the last of them ended; they are marked and left out of every
// metric. The measured requests follow the arrival plan of
// workload/arrival.h (PlanArrivals with the load's rate, burstiness and
// seed), offset to the measured phase's start. A request is issued when its
// planned time has come and a slot is free (closed loop:
// load.max_concurrency); `scheduled_ns` is the planned time, `sent_ns` the
// actual one, so waiting inside the client shows as client queue time.
//
// Ending: after all requests completed; or, with load.duration_s, issuing
// stops duration seconds after the measured phase began and requests in
// flight run to completion; or when *stop becomes true (SIGINT): issuing stops,
// in-flight requests get `grace` to finish, the rest end failed with
// failure::kInterrupted, and the result has interrupted = true.
//
// Time zero of every record is the start of the run (the first warm-up send).
// When load.num_prompts exceeds specs.size() - warmup, specs are reused
// cyclically (record ids stay unique: the issue order).
//
// Cancellation (workload/cancel.h): a spec with cancel_after_ns is cancelled
// through Target::Cancel that long after it was sent; one with
// cancel_after_tokens is left to the Target. A workload with either fails
// (InvalidArgument) on a Target that cannot cancel.
//
// Thread safety: RunLoad runs on the calling thread; `stop` may be set from
// any thread or a signal handler; the Observer is called on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/limits.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/target.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::loadgen {

struct Progress {
  int64_t issued = 0;       // measured requests issued
  int64_t completed = 0;    // measured requests ended ok
  int64_t failed = 0;       // measured requests ended failed
  int64_t cancelled = 0;    // measured requests the client cancelled (workload/cancel.h)
  int64_t total = -1;       // measured requests planned; -1 when bounded by duration only
  int64_t in_flight = 0;
  int64_t warmup_left = 0;  // warm-up requests not yet ended
  Nanos elapsed_ns = 0;     // since the measured phase began (0 during warm-up)
  double duration_s = 0;    // the --duration limit, 0 if none
  bool stopping = false;    // stop requested; draining
};

class Observer {
 public:
  virtual ~Observer() = default;
  // Called about every `progress_interval` and once at the end.
  virtual void OnProgress(const Progress& progress) = 0;
  // Called for every request as it ends (after it was rebased); warm-up too.
  virtual void OnRequest(const RequestRecord& /*record*/) {}
};

struct RunOptions {
  Nanos grace = 5 * kNanosPerSecond;         // after a stop, before aborting
  Nanos progress_interval = 200 * kNanosPerMilli;
  // Longest wait in one Poll, so a stop request is noticed promptly.
  Nanos max_poll = 50 * kNanosPerMilli;
  // Largest arrival plan made for a duration-bounded open-loop run: the
  // requests one run may hold.
  int64_t max_planned = kMaxRunRequests;
};

// The live progress line `frontier bench` shows (one line, no newline):
// "warm-up: N requests left" during the warm-up, else done/total, the rate,
// requests in flight, elapsed time, ETA and errors; "(stopping: ...)" after a stop.
std::string ProgressText(const Progress& p);

// Runs the workload. Fails (InvalidArgument) only on bad options: no specs,
// fewer specs than warm-up requests, a non-positive rate or burstiness.
Result<RunResult> RunLoad(Target& target, std::span<const workload::RequestSpec> specs,
                          const workload::LoadOptions& load, const RunOptions& options,
                          Observer* observer, const std::atomic<bool>* stop);

}  // namespace frontier::loadgen
