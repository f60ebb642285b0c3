#include "power/integrate.h"

#include <algorithm>
#include <cmath>

namespace frontier::power {
namespace {

double Lerp(Nanos t0, double v0, Nanos t1, double v1, Nanos t) {
  if (t1 == t0) return v1;
  const double f = static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
  return v0 + (v1 - v0) * f;
}

// The value at t of the piecewise-linear series through (ts[i], vs[i]).
// REQUIRES: ts sorted, ts.front() <= t <= ts.back().
double At(const std::vector<Nanos>& ts, const std::vector<double>& vs, Nanos t) {
  auto hi = std::lower_bound(ts.begin(), ts.end(), t);
  if (hi == ts.begin()) return vs.front();
  const auto j = static_cast<size_t>(hi - ts.begin());
  if (j == ts.size()) return vs.back();
  return Lerp(ts[j - 1], vs[j - 1], ts[j], vs[j], t);
}

// The trapezoid integral over [a, b] of the piecewise-linear series (W over ns -> J).
double Trapezoid(const std::vector<Nanos>& ts, const std::vector<double>& ps, Nanos a, Nanos b) {
  double joules = 0;
  for (size_t i = 0; i + 1 < ts.size(); ++i) {
    const Nanos lo = std::max(a, ts[i]), hi = std::min(b, ts[i + 1]);
    if (hi <= lo) continue;
    const double p_lo = Lerp(ts[i], ps[i], ts[i + 1], ps[i + 1], lo);
    const double p_hi = Lerp(ts[i], ps[i], ts[i + 1], ps[i + 1], hi);
    joules += 0.5 * (p_lo + p_hi) * NanosToSeconds(hi - lo);
  }
  return joules;
}

}  // namespace

double UnwrapStep(double value, double max_range, double* previous) {
  double step = 0;
  if (*previous >= 0) step = value >= *previous ? value - *previous : (max_range - *previous) + value;
  *previous = value;
  return step;
}

Result<EnergyMeasurement> Integrate(std::span<const PowerReading> readings, const std::vector<std::string>& devices,
                                    Nanos a, Nanos b) {
  if (b <= a) return FailedPrecondition("power: the measured window is empty");
  if (readings.size() < 2) return FailedPrecondition("power: fewer than two readings were taken");
  if (readings.front().t_ns > a || readings.back().t_ns < b)
    return FailedPrecondition("power: the readings do not cover the measured window");
  const size_t n = readings.size(), nd = devices.size();
  std::vector<Nanos> ts(n);
  for (size_t i = 0; i < n; ++i) ts[i] = readings[i].t_ns;

  EnergyMeasurement m;
  m.window_s = NanosToSeconds(b - a);
  for (const auto& r : readings) m.samples += r.t_ns >= a && r.t_ns <= b;
  bool any_counter = false, any_integrated = false;
  // Each device's power at each reading, for the peaks (NaN: none).
  std::vector<std::vector<double>> power(nd, std::vector<double>(n, std::nan("")));
  for (size_t d = 0; d < nd; ++d) {
    std::vector<double> e(n), p(n);
    bool counter = true;
    std::vector<Nanos> pt;
    std::vector<double> pv;
    for (size_t i = 0; i < n; ++i) {
      e[i] = d < readings[i].energy_j.size() ? readings[i].energy_j[d] : std::nan("");
      p[i] = d < readings[i].power_w.size() ? readings[i].power_w[d] : std::nan("");
      counter = counter && std::isfinite(e[i]);
      if (std::isfinite(p[i])) {
        pt.push_back(ts[i]);
        pv.push_back(p[i]);
      }
    }
    EnergyDevice dev;
    dev.name = devices[d];
    if (counter) {
      any_counter = true;
      dev.joules = At(ts, e, b) - At(ts, e, a);
    } else if (pt.size() >= 2 && pt.front() <= a && pt.back() >= b) {
      any_integrated = true;
      dev.joules = Trapezoid(pt, pv, a, b);
    } else {
      return FailedPrecondition("power: " + devices[d] + " gave neither an energy counter nor power readings "
                                "around the whole measured window");
    }
    for (size_t i = 0; i < n; ++i) {
      const bool inside = ts[i] >= a && ts[i] <= b;
      if (std::isfinite(p[i])) {
        if (inside) power[d][i] = p[i];
      } else if (counter && i > 0 && ts[i] > a && ts[i - 1] < b && ts[i] > ts[i - 1]) {
        // The counter's slope over the interval that ends at this reading.
        power[d][i] = (e[i] - e[i - 1]) / NanosToSeconds(ts[i] - ts[i - 1]);
      }
      if (std::isfinite(power[d][i])) dev.peak_w = std::max(dev.peak_w, power[d][i]);
    }
    dev.mean_w = dev.joules / m.window_s;
    m.joules += dev.joules;
    m.devices.push_back(std::move(dev));
  }
  m.method = any_counter && any_integrated ? "mixed" : any_counter ? "energy counter" : "power integrated";
  m.mean_w = m.joules / m.window_s;
  for (size_t i = 0; i < n; ++i) {
    double sum = 0;
    bool any = false;
    for (size_t d = 0; d < nd; ++d)
      if (std::isfinite(power[d][i])) {
        sum += power[d][i];
        any = true;
      }
    if (any) m.peak_w = std::max(m.peak_w, sum);
  }
  return m;
}

}  // namespace frontier::power
