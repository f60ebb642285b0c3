// stats.h: descriptive statistics over samples.
//
// Mean, median and deviation as numpy defines them, so that frontier's
// figures compare with vLLM's serving benchmark:
//   Mean     = np.mean
//   Median   = np.median
//   StdDev   = np.std (population, ddof = 0)
// Percentiles by one of two named methods, side by side because the two
// yardsticks frontier reports against define them differently:
//   kLinear       np.percentile(x, p) with numpy's default "linear" method:
//                 rank = p/100 * (n - 1), interpolated between the two nearest
//                 order statistics. vLLM's metrics (metrics/summary.h).
//   kLoadgenIndex MLPerf LoadGen's (loadgen/results.cc): the sorted samples'
//                 element at index floor(n * p/100), no interpolation (the
//                 last element when that index is n). MLPerf verdicts
//                 (loadgen/verdict.h).
// An empty sample gives 0 for every statistic (vLLM reports 0 too).
//
// Thread safety: pure functions.
#pragma once

#include <span>
#include <vector>

namespace frontier {

enum class PercentileMethod { kLinear, kLoadgenIndex };

// "linear (numpy)", "index (MLPerf LoadGen)".
const char* PercentileMethodName(PercentileMethod m);

double Mean(std::span<const double> x);
double StdDev(std::span<const double> x);
// REQUIRES: 0 <= p <= 100. Copies and sorts x.
double Percentile(std::span<const double> x, double p, PercentileMethod method = PercentileMethod::kLinear);
// As Percentile, for a sample already sorted ascending (no copy).
double PercentileSorted(std::span<const double> sorted, double p,
                        PercentileMethod method = PercentileMethod::kLinear);
double Median(std::span<const double> x);

// Several percentiles at once, each as Percentile() defines it, without a
// full sort, which matters for the millions of inter-token gaps of a large
// run: by selection (std::nth_element) for small samples, and from 65,536
// samples by counting into value buckets and sorting only the buckets that
// hold the ranks asked for (two passes over the data). May reorder `x`.
// Returns the values in the order of `ps`; each p must be in [0, 100].
std::vector<double> Percentiles(std::span<double> x, std::span<const double> ps,
                                PercentileMethod method = PercentileMethod::kLinear);
// As above, for a caller that already knows the samples' minimum and maximum
// (found while it gathered them), which saves a pass over a large sample.
// REQUIRES: min and max are the smallest and largest element of a non-empty x.
std::vector<double> Percentiles(std::span<double> x, std::span<const double> ps, double min, double max,
                                PercentileMethod method = PercentileMethod::kLinear);

}  // namespace frontier
