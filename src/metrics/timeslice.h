// timeslice.h: a run's metrics per fixed window of time (a "timeslice"), and
// the steady-state span where the load held level, from the per-request
// records alone, so measured and simulated runs are sliced the same way.
//
// Windows: [t0 + k S, t0 + (k+1) S) for k = 0, 1, ..., where t0 is the
// earliest scheduled time of a non-warm-up request (the start of Summary's
// duration) and the last window ends at the latest end (it may be shorter
// than S; its rates divide by its own length). Per window:
//   completed       ok requests that ended in the window
//   output tokens   tokens of ok requests counted when their stream event
//                   arrived; a request's tokens beyond its events' (a server's
//                   usage count above the stream's) count at its end, so the
//                   windows sum to Summary::total_output_tokens
//   TTFT, TPOT      p50 and p99 over the ok requests that ended in the window
//                   (TPOT over those with more than one output token)
//   in flight       time-average of the requests between send and end
//                   (failed ones too, as Summary's max_concurrent_requests)
// Warm-up and cancelled requests are left out, as from every other metric.
//
// Steady state (the rule): the plateau is the median of the windows' mean
// in-flight counts; a window is level when its mean in flight is within
// `steady_tolerance` (10%) of the plateau; the steady span runs from the first
// level window (the ramp-up is over) to the last one (the drain has not
// begun), windows between that stray from the plateau included, so the noise
// of an open-loop arrival process does not cut the span short. Windows before
// it are ramp-up, after it ramp-down. A run of fewer than
// kMinWindowsForSteady windows, or with nothing in flight, has no steady span.
// Steady throughputs are the tokens and completions inside the span over its
// length.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_result.h"
#include "core/status.h"

namespace frontier::metrics {

inline constexpr int kMinWindowsForSteady = 3;
// The most windows a run is cut into: a shorter --timeslice is widened to
// duration / kMaxWindows (Timeslices::slice_s says the window used).
inline constexpr int64_t kMaxWindows = 100'000;

// The bounds of a window given (--timeslice, a plan's timeslice_s); 0 is automatic.
inline constexpr double kMinSliceSeconds = 1e-3, kMaxSliceSeconds = 86400;

struct TimesliceOptions {
  // Window length in seconds; 0 = AutoSliceSeconds(duration).
  double slice_s = 0;
  // Largest relative distance of a level window's mean in flight from the plateau.
  double steady_tolerance = 0.10;
};

enum class Phase { kNone, kRampUp, kSteady, kRampDown };  // kNone: the run has no steady span
const char* PhaseName(Phase p);  // "none", "ramp_up", "steady", "ramp_down"

struct Timeslice {
  double start_s = 0, end_s = 0;  // from t0
  int64_t completed = 0;
  int64_t output_tokens = 0;
  double request_throughput = 0;  // completed / window length
  double output_throughput = 0;   // output_tokens / window length
  double ttft_p50_ms = 0, ttft_p99_ms = 0;  // 0 when nothing ended in the window
  double tpot_p50_ms = 0, tpot_p99_ms = 0;
  double mean_in_flight = 0;
  Phase phase = Phase::kNone;
};

struct Timeslices {
  double slice_s = 0;             // the window length used
  std::vector<Timeslice> slices;  // in time order
  double plateau_in_flight = 0;   // median of the windows' mean in flight
  bool steady = false;            // a steady span was found
  double steady_start_s = 0, steady_end_s = 0;
  int64_t steady_completed = 0, steady_output_tokens = 0;
  double steady_request_throughput = 0, steady_output_throughput = 0;
};

// The default window: the run's duration / 30 rounded up to 1, 2 or 5 times
// a power of ten seconds (about 15 to 30 windows a run), at least 1 ms.
double AutoSliceSeconds(double duration_s);

// InvalidArgument naming the flag (--timeslice) unless slice_s is 0 or in
// [0.001, 86400], and steady_tolerance in (0, 1).
Status CheckTimesliceOptions(const TimesliceOptions& options);

// The run's windows and steady span. REQUIRES: CheckTimesliceOptions(options)
// is OK. A run without an ended non-warm-up request has no windows.
Timeslices ComputeTimeslices(const RunResult& run, const TimesliceOptions& options);

// {"slice_s", "plateau_in_flight", "steady": {"start_s", "end_s", "completed",
// "output_tokens", "request_throughput", "output_throughput"} or null,
// "windows": {"start_s": [...], "end_s": [...], "completed": [...], ...,
// "phase": ["ramp_up", ...]}} (columns, as server_metrics' samples).
nlohmann::json TimeslicesToJson(const Timeslices& t);

}  // namespace frontier::metrics
