// verdict.h: judges a finished run against ScenarioRules (scenario.h):
// VALID or INVALID, with every reason, and prints it as LoadGen's summary does.
//
//   metrics::Summary s = metrics::Summarize(run, summary_options);
//   Verdict v = Judge(run, rules, s, OriginFor(load));
//   std::cout << FormatVerdict(v, rules);
//   json["verdict"] = VerdictJson(v, rules);
//
// What is judged (warm-up requests are left out, as from every metric):
//   * every measured request ended ok (LoadGen errors unless all complete);
//     a run interrupted by the user is INVALID;
//   * minimum duration: Server: the last query was scheduled at least
//     min_duration after the first; Offline: the last sample ended at least
//     min_duration after the start (LoadGen's MinDurationMet);
//   * minimum count: queries (Server) or samples (Offline) issued;
//   * each latency constraint: its percentile, by LoadGen's rule
//     (core/stats.h's PercentileMethod::kLoadgenIndex), is at most the limit;
//   * Server/Interactive: each constraint passes early stopping (early_stopping.h);
//   * the minimum interactivity, when asked: summary.interactivity (1000 /
//     median TPOT, metrics/summary.h) at least that.
// Latency samples: TTFT = first token - origin, E2EL = end - origin, TPOT =
// (end - first token) / (output tokens - 1) for requests with more than one
// output token (LoadGen and vLLM alike). The origin is the planned send time
// in an open loop (LoadGen measures from the scheduled time, so queueing in
// the client counts against the system) and the actual send time in a closed
// loop (a request's clock starts when a slot frees, as in vLLM's benchmark).
// The verdict's percentiles may therefore differ from the vLLM-style summary's
// (numpy interpolation, from the send time) by a sample's step and the
// client's queueing.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_result.h"
#include "loadgen/early_stopping.h"
#include "loadgen/scenario.h"
#include "metrics/summary.h"
#include "workload/load.h"

namespace frontier::loadgen {

enum class LatencyOrigin { kScheduled, kSent };

// kScheduled for an open loop (finite request rate), kSent for a closed loop.
LatencyOrigin OriginFor(const workload::LoadOptions& load);

struct ConstraintCheck {
  LatencyConstraint constraint;
  int64_t samples = 0;
  double value_ms = 0;                         // the percentile, LoadGen's rule; 0 with no samples
  bool met = false;                            // value_ms <= limit_ms (and samples > 0)
  std::optional<EarlyStoppingResult> early_stopping;  // Server/Interactive
};

struct Verdict {
  bool valid = false;
  std::vector<std::string> reasons;            // one line per failed rule; empty when valid
  int64_t queries = 0;                         // measured requests issued
  int64_t failed = 0;
  bool interrupted = false;
  double duration_s = 0;                       // as the minimum-duration rule measures it
  bool min_duration_met = true, min_queries_met = true;
  bool constraints_met = true, early_stopping_met = true, interactivity_met = true;
  std::vector<ConstraintCheck> checks;
  double interactivity = 0;                    // from the summary
  double scheduled_qps = 0;                    // Server: (queries - 1) / last scheduled time (LoadGen)
  double output_tokens_per_s = 0;              // from the summary
  // Set by the caller (a search) when the run was stopped as over-saturated;
  // Judge leaves it empty. Makes the verdict INVALID.
  std::string over_saturated;
};

Verdict Judge(const RunResult& run, const ScenarioRules& rules, const metrics::Summary& summary,
              LatencyOrigin origin);

// Marks `v` INVALID for over-saturation with `detail` as its reason.
void MarkOverSaturated(Verdict& v, const std::string& detail);

// LoadGen's "MLPerf Results Summary" layout: scenario, result, each rule
// satisfied or not, the reasons, each early-stopping result.
std::string FormatVerdict(const Verdict& v, const ScenarioRules& rules);

// {"result": "VALID"|"INVALID" (metrics::VerdictLabel), "reasons": [...], "scenario": ..., "benchmark": ...,
//  "constraints": [{"metric", "percentile", "limit_ms", "value_ms", "met", "early_stopping": {...}}], ...}
nlohmann::json VerdictJson(const Verdict& v, const ScenarioRules& rules);

}  // namespace frontier::loadgen
