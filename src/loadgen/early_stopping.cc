#include "loadgen/early_stopping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace frontier::loadgen {

double EarlyStoppingOdds(int64_t h, int64_t t, const EarlyStoppingOptions& o) {
  // Summed in log space: p^n underflows a double for the query counts of a
  // long run (0.99^100000 ~ 1e-437).
  const auto n = static_cast<double>(h + t);
  const double q = 1.0 - (o.percentile - o.tolerance);  // over-limit probability at the edge
  const double log_q = std::log(q), log_p = std::log1p(-q);
  const double log_n_fact = std::lgamma(n + 1);
  double top = -std::numeric_limits<double>::infinity();
  std::vector<double> terms;
  terms.reserve(static_cast<size_t>(t) + 1);
  for (int64_t x = 0; x <= t; ++x) {
    const auto k = static_cast<double>(x);
    const double v = log_n_fact - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * log_q + (n - k) * log_p;
    terms.push_back(v);
    top = std::max(top, v);
  }
  double sum = 0;
  for (double v : terms) sum += std::exp(v - top);
  return std::min(1.0, std::exp(top) * sum);
}

int64_t MinPassingQueries(int64_t t, const EarlyStoppingOptions& o) {
  const double bound = 1.0 - o.confidence;
  auto passes = [&](int64_t h) { return EarlyStoppingOdds(h, t, o) < bound; };
  // Odds fall as h grows: find a passing h by doubling, then the least by bisection.
  int64_t lo = 0, hi = 1;  // h = 0 never passes (Odds = 1)
  while (!passes(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (passes(mid) ? hi : lo) = mid;
  }
  return hi;
}

EarlyStoppingResult EarlyStopping(std::span<const double> samples, double limit, const EarlyStoppingOptions& o) {
  EarlyStoppingResult r;
  r.queries = static_cast<int64_t>(samples.size());
  r.overlatency = std::count_if(samples.begin(), samples.end(), [&](double v) { return v > limit; });
  r.required = MinPassingQueries(r.overlatency, o) + r.overlatency;
  r.met = r.queries >= r.required;

  // The estimate: the largest t with n >= MinPassingQueries(t) + t (which grows with t).
  const int64_t n = r.queries;
  auto enough = [&](int64_t t) { return n >= MinPassingQueries(t, o) + t; };
  if (n == 0 || !enough(1)) return r;
  int64_t lo = 1, hi = n + 1;  // enough(lo), !enough(hi): MinPassingQueries(t) >= 1
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (enough(mid) ? lo : hi) = mid;
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  const auto at = sorted.begin() + (n - lo);
  std::nth_element(sorted.begin(), at, sorted.end());
  r.estimate = *at;
  r.estimate_rank = lo;
  return r;
}

}  // namespace frontier::loadgen
