#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace frontier {

double Mean(std::span<const double> x) {
  if (x.empty()) return 0.0;
  double sum = 0.0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}

double StdDev(std::span<const double> x) {
  if (x.empty()) return 0.0;
  const double m = Mean(x);
  double ss = 0.0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size()));
}

double PercentileSorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double Percentile(std::span<const double> x, double p) {
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  return PercentileSorted(sorted, p);
}

double Median(std::span<const double> x) { return Percentile(x, 50.0); }

std::vector<double> Percentiles(std::vector<double>& x, std::span<const double> ps) {
  std::vector<double> out(ps.size(), 0.0);
  if (x.empty()) return out;
  // Visit the percentiles in ascending order so each selection only has to
  // partition what lies above the previous one.
  std::vector<size_t> order(ps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ps[a] < ps[b]; });
  const size_t n = x.size();
  size_t start = 0;
  for (size_t i : order) {
    const double rank = ps[i] / 100.0 * static_cast<double>(n - 1);
    const auto lo = std::min(static_cast<size_t>(std::floor(rank)), n - 1);
    auto lo_it = x.begin() + static_cast<std::ptrdiff_t>(lo);
    std::nth_element(x.begin() + static_cast<std::ptrdiff_t>(start), lo_it, x.end());
    const double v_lo = *lo_it;
    // Everything after lo is >= v_lo; the next order statistic is their minimum.
    const double v_hi = lo + 1 < n ? *std::min_element(lo_it + 1, x.end()) : v_lo;
    out[i] = v_lo + (v_hi - v_lo) * (rank - static_cast<double>(lo));
    start = lo;
  }
  return out;
}

}  // namespace frontier
