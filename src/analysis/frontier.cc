#include "analysis/frontier.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace frontier::analysis {

double ThroughputOf(const OperatingPoint& p, Throughput t) {
  return t == Throughput::kTotal ? p.total_tput_per_gpu : p.output_tput_per_gpu;
}

std::vector<size_t> ParetoFrontier(std::span<const OperatingPoint> points, Throughput t) {
  std::vector<size_t> order;
  for (size_t i = 0; i < points.size(); ++i) {
    const double x = points[i].interactivity, y = ThroughputOf(points[i], t);
    if (std::isfinite(x) && std::isfinite(y) && x > 0 && y > 0) order.push_back(i);
  }
  // Sweep from the most interactive down: a point is on the frontier when its
  // throughput beats every point at least as interactive.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double xa = points[a].interactivity, xb = points[b].interactivity;
    if (xa != xb) return xa > xb;
    return ThroughputOf(points[a], t) > ThroughputOf(points[b], t);
  });
  std::vector<size_t> front;
  double best_y = -1;
  for (size_t i : order) {
    const double y = ThroughputOf(points[i], t);
    if (y > best_y) {
      front.push_back(i);
      best_y = y;
    }
  }
  std::reverse(front.begin(), front.end());
  return front;
}

Curve FrontierCurve(std::span<const OperatingPoint> points, Throughput t) {
  Curve c;
  for (size_t i : ParetoFrontier(points, t)) {
    c.x.push_back(points[i].interactivity);
    c.y.push_back(ThroughputOf(points[i], t));
  }
  return c;
}

std::optional<double> Interpolate(const Curve& c, double x) {
  const size_t n = c.x.size();
  if (n == 0 || !std::isfinite(x) || x < c.x.front() || x > c.x.back()) return std::nullopt;
  if (n == 1) return c.y.front();
  // Interval k with x[k] <= x <= x[k+1].
  size_t k = static_cast<size_t>(std::upper_bound(c.x.begin(), c.x.end(), x) - c.x.begin());
  k = k == 0 ? 0 : std::min(k - 1, n - 2);
  std::vector<double> h(n - 1), d(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) {
    h[i] = c.x[i + 1] - c.x[i];
    d[i] = (c.y[i + 1] - c.y[i]) / h[i];
  }
  // Fritsch-Carlson slopes: weighted harmonic mean inside, zero at a sign change,
  // one-sided three-point estimates at the ends, clipped to keep monotonicity.
  auto slope = [&](size_t i) -> double {
    if (n == 2) return d[0];
    if (i == 0 || i == n - 1) {
      const size_t a = i == 0 ? 0 : n - 2, b = i == 0 ? 1 : n - 3;
      const double ha = h[a], hb = h[b];
      double m = ((2 * ha + hb) * d[a] - ha * d[b]) / (ha + hb);
      if (m * d[a] <= 0) {
        m = 0;
      } else if (d[a] * d[b] <= 0 && std::abs(m) > std::abs(3 * d[a])) {
        m = 3 * d[a];
      }
      return m;
    }
    if (d[i - 1] * d[i] <= 0) return 0;
    const double w1 = 2 * h[i] + h[i - 1], w2 = h[i] + 2 * h[i - 1];
    return (w1 + w2) / (w1 / d[i - 1] + w2 / d[i]);
  };
  const double m0 = slope(k), m1 = slope(k + 1);
  const double t = (x - c.x[k]) / h[k], t2 = t * t, t3 = t2 * t;
  const double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2,
               h11 = t3 - t2;
  return h00 * c.y[k] + h10 * h[k] * m0 + h01 * c.y[k + 1] + h11 * h[k] * m1;
}

}  // namespace frontier::analysis
