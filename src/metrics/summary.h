// summary.h: the metrics of one run, with vLLM's serving-benchmark names and
// definitions so frontier's numbers compare with published ones.
//
// Per request (warm-up requests and failed requests excluded):
//   TTFT  = first_token - sent
//   E2EL  = end - sent
//   TPOT  = (E2EL - TTFT) / (output_tokens - 1), requests with > 1 output token only
//   ITL   = gaps between successive content events, each gap split evenly over
//           the k tokens its event carried (k samples of gap/k). Extra tokens
//           in the first event have no measurable gap and add no ITL sample.
//   ICL   = the raw gaps between successive content events (inter-chunk latency)
//   client queue = sent - scheduled (time a request waited inside the client)
// Per run:
//   duration = max(end) - min(scheduled) over non-warm-up requests
//   request_throughput = completed / duration; output_throughput = sum(output) / duration;
//   total_token_throughput = (sum(input) + sum(output)) / duration
//   goodput = requests meeting every given SLO / duration
//   interactivity = 1000 / median TPOT (tokens/s per user)
//   per-GPU throughputs divide by num_gpus
//   max_concurrent_requests = most requests between send and end at one time
//   timeslices = the run per window of time and its steady-state span, with
//     the steady output and request throughput (metrics/timeslice.h)
// Cancelled requests (abandoned by the client on purpose, workload/cancel.h)
// are counted in `cancelled` only: neither completed nor failed, and in no
// latency or throughput figure.
// Session workloads (RunResult::sessions non-empty), beside the above:
//   turn TTFT / E2EL = TTFT and E2EL of the turns' own requests (not subagents), ok ones
//   session latency  = last end - first send of each session that completed every turn
//   sessions_completed / sessions_failed and the failed sessions' end reasons
//
// The ideal prefix-cache hit rate is copied from the run (RunResult).
// Energy (when the run measured it: RunResult::energy) is copied too, and
//   tokens_per_joule        = (sum(input) + sum(output)) / joules
//   output_tokens_per_joule = sum(output) / joules
// over the same window as the throughputs; 0 without a measurement, where a
// reader shows the TDP bound (analysis/cost.h) instead.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_result.h"
#include "metrics/timeslice.h"

namespace frontier::metrics {

// Mean, median, std and chosen percentiles of one metric, in milliseconds.
struct Distribution {
  double mean = 0, median = 0, std = 0;
  std::vector<std::pair<double, double>> percentiles;  // (p, value)
  size_t count = 0;
  // Value at percentile p if it was requested, else nullopt.
  std::optional<double> At(double p) const;
};

struct GoodputSlo {
  std::optional<double> ttft_ms, tpot_ms, e2el_ms;
  bool any() const { return ttft_ms || tpot_ms || e2el_ms; }
};

struct SummaryOptions {
  std::vector<double> percentiles = {50, 90, 95, 99, 99.9};
  GoodputSlo goodput;
  int num_gpus = 1;
  TimesliceOptions timeslice;  // window length (0: automatic) and steady-state tolerance
};

struct Summary {
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t warmup = 0;
  int64_t total_input_tokens = 0;
  int64_t total_output_tokens = 0;
  double duration_s = 0;
  double request_throughput = 0;      // req/s
  double request_goodput = 0;         // req/s meeting the SLO (0 when no SLO given)
  bool goodput_requested = false;
  double output_throughput = 0;       // tok/s
  double total_token_throughput = 0;  // tok/s
  double output_throughput_per_gpu = 0;
  double total_token_throughput_per_gpu = 0;
  double interactivity = 0;           // tok/s/user = 1000 / median TPOT
  int64_t max_concurrent_requests = 0;
  bool usage_from_server = true;      // every completed request's counts came from server usage
  Distribution ttft_ms, tpot_ms, itl_ms, e2el_ms, icl_ms, client_queue_ms;
  std::map<std::string, int64_t> failures_by_reason;
  int64_t cancelled = 0;              // requests the client cancelled (not failures)
  // Session workloads.
  bool has_sessions = false;
  int64_t sessions_completed = 0;
  int64_t sessions_failed = 0;
  std::map<std::string, int64_t> session_end_reasons;  // failed sessions, by reason
  Distribution turn_ttft_ms, turn_e2el_ms, session_latency_ms;
  // The run's ideal prefix-cache hit rate (< 0: not computed) and its block size.
  double ideal_prefix_hit_rate = -1;
  int ideal_hit_block_tokens = 0;
  // Per-window metrics and the steady span (timeslices.steady false: none found).
  Timeslices timeslices;
  // Measured energy over the run's window (unset: none measured) and the
  // tokens per joule it gives (0 when unset).
  std::optional<EnergyMeasurement> energy;
  double tokens_per_joule = 0;
  double output_tokens_per_joule = 0;
};

// The label a measured or bounded energy figure is shown with:
// "measured (nvml)" for a summary with energy, else "TDP bound".
std::string EnergyLabel(const Summary& s);
// "measured (<source>)".
std::string MeasuredEnergyLabel(const std::string& source);
inline constexpr const char* kTdpBoundLabel = "TDP bound";

Summary Summarize(const RunResult& run, const SummaryOptions& options);

// vLLM's key for a percentile: 99 -> "p99", 99.9 -> "p99.9".
std::string PercentileKey(double p);

// Why a run that completed no request is not stored: "no request completed
// (" + each reason with its count, in the map's order + ")", e.g.
// "no request completed (2 connect, 5 http_500)"; "no request completed (no
// requests)" for an empty map. The sweep's failed point and a bench or
// simulate run marked broken in the store both say it in these words.
std::string NoRequestCompleted(const std::map<std::string, int64_t>& failures_by_reason);

}  // namespace frontier::metrics
