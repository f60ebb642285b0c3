#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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

namespace {

// Order statistics of a large sample by counting: the values are bucketed by
// a monotone map (so bucket order is value order), the buckets holding the
// ranks asked for are found from the counts, and only their members are
// gathered (one more pass) and sorted. Exact.
class BucketSelect {
 public:
  // REQUIRES: x is not empty; every rank < x.size().
  BucketSelect(const std::vector<double>& x, const std::vector<size_t>& ranks) {
    // Minimum and maximum with independent lanes (one pass, no dependency chain).
    double mn[4] = {x[0], x[0], x[0], x[0]}, mx[4] = {x[0], x[0], x[0], x[0]};
    const size_t n = x.size(), whole = n / 4 * 4;
    for (size_t i = 0; i < whole; i += 4) {
      for (size_t j = 0; j < 4; ++j) {
        mn[j] = x[i + j] < mn[j] ? x[i + j] : mn[j];
        mx[j] = x[i + j] > mx[j] ? x[i + j] : mx[j];
      }
    }
    for (size_t i = whole; i < n; ++i) {
      mn[0] = std::min(mn[0], x[i]);
      mx[0] = std::max(mx[0], x[i]);
    }
    lo_ = std::min(std::min(mn[0], mn[1]), std::min(mn[2], mn[3]));
    const double hi = std::max(std::max(mx[0], mx[1]), std::max(mx[2], mx[3]));
    scale_ = hi > lo_ ? static_cast<double>(kBuckets - 1) / (hi - lo_) : 0.0;
    std::vector<size_t> below(kBuckets + 1, 0);  // below[b]: values in buckets < b
    for (double v : x) ++below[Bucket(v) + 1];
    for (size_t b = 1; b <= kBuckets; ++b) below[b] += below[b - 1];
    std::vector<int32_t> slot(kBuckets, -1);
    for (size_t k : ranks) {
      const size_t b = static_cast<size_t>(std::upper_bound(below.begin(), below.end(), k) - below.begin()) - 1;
      if (slot[b] < 0) {
        slot[b] = static_cast<int32_t>(members_.size());
        members_.emplace_back();
        first_.push_back(below[b]);
      }
      where_.push_back(slot[b]);
    }
    for (double v : x) {
      const int32_t s = slot[Bucket(v)];
      if (s >= 0) members_[static_cast<size_t>(s)].push_back(v);
    }
    for (auto& m : members_) std::sort(m.begin(), m.end());
    ranks_ = ranks;
  }
  // The value of the i-th rank given to the constructor.
  double Value(size_t i) const {
    const size_t s = static_cast<size_t>(where_[i]);
    return members_[s][ranks_[i] - first_[s]];
  }

 private:
  static constexpr size_t kBuckets = 1 << 16;
  size_t Bucket(double v) const {
    const double f = (v - lo_) * scale_;
    return f < static_cast<double>(kBuckets - 1) ? static_cast<size_t>(f) : kBuckets - 1;
  }
  double lo_ = 0, scale_ = 0;
  std::vector<std::vector<double>> members_;
  std::vector<size_t> first_, ranks_;
  std::vector<int32_t> where_;
};

}  // namespace

std::vector<double> Percentiles(std::vector<double>& x, std::span<const double> ps) {
  std::vector<double> out(ps.size(), 0.0);
  if (x.empty()) return out;
  const size_t n = x.size();
  if (n >= (1u << 16)) {
    std::vector<size_t> ranks;
    for (double p : ps) {
      const double rank = p / 100.0 * static_cast<double>(n - 1);
      const auto lo = std::min(static_cast<size_t>(std::floor(rank)), n - 1);
      ranks.push_back(lo);
      ranks.push_back(std::min(lo + 1, n - 1));
    }
    const BucketSelect select(x, ranks);
    for (size_t i = 0; i < ps.size(); ++i) {
      const double rank = ps[i] / 100.0 * static_cast<double>(n - 1);
      const double v_lo = select.Value(2 * i), v_hi = select.Value(2 * i + 1);
      out[i] = v_lo + (v_hi - v_lo) * (rank - std::floor(rank));
    }
    return out;
  }
  // Visit the percentiles in ascending order so each selection only has to
  // partition what lies above the previous one.
  std::vector<size_t> order(ps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ps[a] < ps[b]; });
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
