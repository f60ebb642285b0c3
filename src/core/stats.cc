#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

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

const char* PercentileMethodName(PercentileMethod m) {
  return m == PercentileMethod::kLinear ? "linear (numpy)" : "index (MLPerf LoadGen)";
}

namespace {

// Where percentile p of n > 0 samples lies by `method`: the order statistics
// `lo` and `lo + 1` (clamped) and the weight of the second.
struct Rank {
  size_t lo = 0, hi = 0;
  double frac = 0;
};

Rank RankOf(size_t n, double p, PercentileMethod method) {
  Rank r;
  if (method == PercentileMethod::kLoadgenIndex) {
    r.lo = std::min(static_cast<size_t>(std::floor(static_cast<double>(n) * p / 100.0)), n - 1);
    r.hi = r.lo;
    return r;
  }
  const double rank = p / 100.0 * static_cast<double>(n - 1);
  r.lo = std::min(static_cast<size_t>(std::floor(rank)), n - 1);
  r.hi = std::min(r.lo + 1, n - 1);
  r.frac = rank - static_cast<double>(r.lo);
  return r;
}

}  // namespace

double PercentileSorted(std::span<const double> sorted, double p, PercentileMethod method) {
  if (sorted.empty()) return 0.0;
  const Rank r = RankOf(sorted.size(), p, method);
  return sorted[r.lo] + (sorted[r.hi] - sorted[r.lo]) * r.frac;
}

double Percentile(std::span<const double> x, double p, PercentileMethod method) {
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  return PercentileSorted(sorted, p, method);
}

double Median(std::span<const double> x) { return Percentile(x, 50.0); }

namespace {

// Order statistics of a large sample by counting: the values are bucketed by
// a monotone map (so bucket order is value order), the buckets holding the
// ranks asked for are found from the counts, and only their members are
// gathered (one more pass, over the bucket numbers kept from the first) and
// sorted. Exact.
class BucketSelect {
 public:
  // REQUIRES: x is not empty; every rank < x.size().
  // `range`: the samples' minimum and maximum when the caller knows them
  // (else one pass finds them).
  BucketSelect(std::span<const double> x, const std::vector<size_t>& ranks,
               const std::pair<double, double>* range) {
    double hi;
    if (range != nullptr) {
      lo_ = range->first;
      hi = range->second;
    } else {
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
      hi = std::max(std::max(mx[0], mx[1]), std::max(mx[2], mx[3]));
    }
    scale_ = hi > lo_ ? static_cast<double>(kBuckets - 1) / (hi - lo_) : 0.0;
    std::vector<size_t> below(kBuckets + 1, 0);  // below[b]: values in buckets < b
    const std::unique_ptr<uint16_t[]> bucket(new uint16_t[x.size()]);  // every one written below
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t b = Bucket(x[i]);
      bucket[i] = static_cast<uint16_t>(b);
      ++below[b + 1];
    }
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
    for (size_t i = 0; i < x.size(); ++i) {
      const int32_t s = slot[bucket[i]];
      if (s >= 0) members_[static_cast<size_t>(s)].push_back(x[i]);
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
  static constexpr size_t kBuckets = 1 << 16;  // bucket numbers fit 16 bits
  size_t Bucket(double v) const {
    const double f = (v - lo_) * scale_;
    // f >= 0 (v >= lo_): a signed conversion is one instruction, an unsigned one a branch more.
    return f < static_cast<double>(kBuckets - 1) ? static_cast<size_t>(static_cast<int64_t>(f)) : kBuckets - 1;
  }
  double lo_ = 0, scale_ = 0;
  std::vector<std::vector<double>> members_;
  std::vector<size_t> first_, ranks_;
  std::vector<int32_t> where_;
};

}  // namespace

namespace {

std::vector<double> PercentilesImpl(std::span<double> x, std::span<const double> ps, PercentileMethod method,
                                    const std::pair<double, double>* range) {
  std::vector<double> out(ps.size(), 0.0);
  if (x.empty()) return out;
  const size_t n = x.size();
  std::vector<Rank> where;
  where.reserve(ps.size());
  for (double p : ps) where.push_back(RankOf(n, p, method));
  if (n >= (1u << 16)) {
    std::vector<size_t> ranks;
    for (const Rank& r : where) {
      ranks.push_back(r.lo);
      ranks.push_back(r.hi);
    }
    const BucketSelect select(x, ranks, range);
    for (size_t i = 0; i < ps.size(); ++i) {
      const double v_lo = select.Value(2 * i), v_hi = select.Value(2 * i + 1);
      out[i] = v_lo + (v_hi - v_lo) * where[i].frac;
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
    const Rank& r = where[i];
    auto lo_it = x.begin() + static_cast<std::ptrdiff_t>(r.lo);
    std::nth_element(x.begin() + static_cast<std::ptrdiff_t>(start), lo_it, x.end());
    const double v_lo = *lo_it;
    // Everything after lo is >= v_lo; the next order statistic is their minimum.
    const double v_hi = r.hi > r.lo ? *std::min_element(lo_it + 1, x.end()) : v_lo;
    out[i] = v_lo + (v_hi - v_lo) * r.frac;
    start = r.lo;
  }
  return out;
}

}  // namespace

std::vector<double> Percentiles(std::span<double> x, std::span<const double> ps, PercentileMethod method) {
  return PercentilesImpl(x, ps, method, nullptr);
}

std::vector<double> Percentiles(std::span<double> x, std::span<const double> ps, double min, double max,
                                PercentileMethod method) {
  const std::pair<double, double> range{min, max};
  return PercentilesImpl(x, ps, method, &range);
}

}  // namespace frontier
