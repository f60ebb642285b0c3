// regression.h: is a candidate run worse than a baseline beyond measured noise?
//
// Both runs are matched point by point (same workload and load; repetitions
// of a point are its samples). For each metric and point:
//   diff      = mean(candidate) - mean(baseline), signed so that > 0 is worse
//   noise     = t(level, Welch dof) * sqrt(s_b^2/n_b + s_c^2/n_c)    when both
//               sides have >= 2 repetitions (the measured noise),
//             = unmeasured_threshold * |mean(baseline)|              otherwise
//   threshold = max(noise, min_relative * |mean(baseline)|)
//   regression  when diff >  threshold
//   improvement when diff < -threshold
// so a change inside the run-to-run noise is never flagged, and with one
// repetition only a change beyond `unmeasured_threshold` is.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace frontier::analysis {

struct MetricSpec {
  std::string name;
  bool higher_is_better = true;
};

// The metrics compared by default: throughput per GPU (total, output) and
// interactivity (higher is better), median TTFT and TPOT (lower is better).
std::vector<MetricSpec> DefaultRegressionMetrics();

// The repetitions of one point of a run: metric name -> samples.
struct PointSamples {
  std::string key;  // e.g. "1k1k|concurrency=16"
  std::map<std::string, std::vector<double>> metrics;
};

struct RegressionOptions {
  double level = 0.95;                 // confidence level of the noise band
  double min_relative = 0.01;          // never flag a change below 1% of the baseline
  double unmeasured_threshold = 0.05;  // relative threshold when noise was not measured
};

struct MetricDelta {
  std::string key;
  std::string metric;
  double baseline = 0, candidate = 0;  // means
  double relative_change = 0;          // (candidate - baseline) / |baseline|, signed as measured
  double threshold = 0;                // absolute, in the metric's units
  bool noise_measured = false;
  int n_baseline = 0, n_candidate = 0;
  bool regression = false;
  bool improvement = false;
};

struct RegressionReport {
  std::vector<MetricDelta> deltas;     // points present in both runs
  std::vector<std::string> only_baseline, only_candidate;
  int regressions = 0;
  int improvements = 0;
};

RegressionReport FindRegressions(const std::vector<PointSamples>& baseline,
                                 const std::vector<PointSamples>& candidate,
                                 const std::vector<MetricSpec>& metrics,
                                 const RegressionOptions& options);

}  // namespace frontier::analysis
