// stats.h: descriptive statistics over samples, defined as numpy defines them
// so that frontier's figures compare with vLLM's serving benchmark:
//   Mean     = np.mean
//   Median   = np.median
//   StdDev   = np.std (population, ddof = 0)
//   Percentile(p) = np.percentile(x, p) with the default "linear" method:
//     rank = p/100 * (n - 1), interpolate between the two nearest order statistics.
// An empty sample gives 0 for every statistic (vLLM reports 0 too).
//
// Thread safety: pure functions.
#pragma once

#include <span>
#include <vector>

namespace frontier {

double Mean(std::span<const double> x);
double StdDev(std::span<const double> x);
// REQUIRES: 0 <= p <= 100. Copies and sorts x.
double Percentile(std::span<const double> x, double p);
// As Percentile, for a sample already sorted ascending (no copy).
double PercentileSorted(std::span<const double> sorted, double p);
double Median(std::span<const double> x);

// Several percentiles at once, each as Percentile() defines it, without a
// full sort, which matters for the millions of inter-token gaps of a large
// run: by selection (std::nth_element) for small samples, and from 65,536
// samples by counting into value buckets and sorting only the buckets that
// hold the ranks asked for (two passes over the data). May reorder `x`.
// Returns the values in the order of `ps`; each p must be in [0, 100].
std::vector<double> Percentiles(std::vector<double>& x, std::span<const double> ps);

}  // namespace frontier
