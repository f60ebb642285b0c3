// early_stopping.h: MLPerf LoadGen's early-stopping test for a latency
// percentile, so a run may be judged on fewer queries than a fixed count.
//
// The model (LoadGen, loadgen/early_stopping.cc and PerformanceSummary::
// EarlyStopping in loadgen/results.cc of github.com/mlcommons/inference):
// each query is over the latency limit independently with probability q. A
// system meets "the p-th percentile is within the limit" when q <= 1 - p. Seeing
// t queries over the limit among n = h + t, the run is accepted with
// confidence c when a system exactly at the edge (q = 1 - p + d, d the
// tolerance, 0 in MLPerf) would show t or fewer over-limit queries in n with
// probability below 1 - c:
//
//   Odds(h, t, p, d) = P[Binomial(h + t, 1 - (p - d)) <= t]
//                    = sum_{x=0..t} C(h+t, x) (1-p+d)^x (p-d)^(h+t-x)
//   MinPassingQueries(t) = the least h with Odds(h, t, p, d) < 1 - c
//
// (LoadGen evaluates Odds as the regularized incomplete beta function
// I_{p-d}(h, t + 1); the two are equal. It compares with a strict "<".)
//
// Server scenario: t = samples whose latency is over the limit; the run
// passes early stopping when queries >= MinPassingQueries(t) + t.
// Estimate (LoadGen's SingleStream/MultiStream method): the largest t with
// queries >= MinPassingQueries(t) + t; the t-th largest latency is then an
// upper bound of the p-th percentile at confidence c, and t - 1 samples are
// "discarded". With p = 0.99, c = 0.99: 459 queries with none over the limit,
// 662 with one (mlperf.conf's MultiStream min_query_count is 662).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace frontier::loadgen {

struct EarlyStoppingOptions {
  double percentile = 0.99;   // p, as a fraction in (0, 1)
  double confidence = 0.99;   // c: LoadGen's fixed value
  double tolerance = 0.0;     // d: LoadGen's fixed value
};

// P[Binomial(h + t, 1 - (p - d)) <= t]. REQUIRES: h >= 0, t >= 0, 0 < p - d < 1.
double EarlyStoppingOdds(int64_t h, int64_t t, const EarlyStoppingOptions& o);

// The least h >= 0 with EarlyStoppingOdds(h, t, o) < 1 - c. REQUIRES: t >= 0.
int64_t MinPassingQueries(int64_t t, const EarlyStoppingOptions& o);

struct EarlyStoppingResult {
  int64_t queries = 0;           // n: samples judged
  int64_t overlatency = 0;       // t: samples over the limit
  int64_t required = 0;          // MinPassingQueries(t) + t
  bool met = false;              // queries >= required
  // The early-stopping percentile estimate: the `estimate_rank`-th largest
  // sample (1 = the largest), unset when n < MinPassingQueries(1) + 1.
  std::optional<double> estimate;
  int64_t estimate_rank = 0;
};

// Judges `samples` (any unit; need not be sorted) against `limit`: a sample is
// over the limit when it is strictly greater (as LoadGen counts them).
EarlyStoppingResult EarlyStopping(std::span<const double> samples, double limit,
                                  const EarlyStoppingOptions& o);

}  // namespace frontier::loadgen
