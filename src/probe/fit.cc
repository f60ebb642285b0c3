// fit.cc: the log-space curve fit fit.h describes.
#include "probe/fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace frontier::probe {
namespace {

// For a fixed half: the best log max and the sum of squared log errors.
double Cost(const std::vector<std::pair<double, double>>& pts, double half, double* log_max) {
  double sum = 0;
  for (const auto& [x, y] : pts) sum += std::log(y) - std::log(x / (x + half));
  *log_max = sum / static_cast<double>(pts.size());
  double cost = 0;
  for (const auto& [x, y] : pts) {
    const double e = *log_max + std::log(x / (x + half)) - std::log(y);
    cost += e * e;
  }
  return cost;
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

}  // namespace

Result<sim::Curve> FitCurve(const std::vector<std::pair<double, double>>& pts, double* rms_log_error) {
  if (pts.empty()) return InvalidArgument("no points to fit a curve to");
  for (const auto& [x, y] : pts)
    if (!(x > 0) || !(y > 0)) return InvalidArgument("curve points need x > 0 and y > 0");
  // Log grid over half in [1e-2, 1e5] (half -> 0 is the constant curve), then golden section.
  double best_u = -2, best_cost = 0, lm = 0;
  best_cost = Cost(pts, std::pow(10.0, best_u), &lm);
  for (double u = -2; u <= 5.0001; u += 0.05) {
    const double c = Cost(pts, std::pow(10.0, u), &lm);
    if (c < best_cost) best_cost = c, best_u = u;
  }
  double a = std::max(-2.0, best_u - 0.05), b = std::min(5.0, best_u + 0.05);
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 60; ++i) {
    const double c1 = b - g * (b - a), c2 = a + g * (b - a);
    if (Cost(pts, std::pow(10.0, c1), &lm) < Cost(pts, std::pow(10.0, c2), &lm)) b = c2;
    else a = c1;
  }
  const double half = std::pow(10.0, (a + b) / 2);
  const double cost = Cost(pts, half, &lm);
  if (rms_log_error) *rms_log_error = std::sqrt(cost / static_cast<double>(pts.size()));
  // A half below a hundredth of a row is a constant curve.
  sim::Curve c{std::exp(lm), half < 0.0101 ? 0.0 : half};
  return c;
}

Result<ProbeFit> FitProbe(const ProbeResult& r, const std::string& run_label, const std::string& created_utc,
                          const std::vector<std::string>& only) {
  const auto wanted = [&](const std::string& name, bool by_default) {
    return only.empty() ? by_default : std::find(only.begin(), only.end(), name) != only.end();
  };
  std::vector<std::string> measurable;
  ProbeFit fit;
  sim::GpuOverride& o = fit.override_file;
  o.hardware = r.hardware;
  o.probe_run = run_label;
  o.device = r.device.name;
  o.measured_utc = created_utc;
  const std::string origin = "measured by frontier probe, run " + run_label + " on " + r.device.name + " (" +
                             r.device.backend + ", " + r.device.library_versions + ")";

  std::map<GemmPrecision, std::vector<std::pair<double, double>>> by_precision;
  for (const auto& g : r.gemm)
    if (g.TunedFraction() > 0) by_precision[g.precision].push_back({static_cast<double>(g.m), g.TunedFraction()});
  for (const auto& [p, pts] : by_precision) {
    const std::string base = std::string("gemm.") + GemmPrecisionName(p);
    measurable.push_back(base + ".max");
    measurable.push_back(base + ".half");
    CurveFit cf;
    cf.precision = p;
    cf.points = static_cast<int>(pts.size());
    FRONTIER_ASSIGN_OR_RETURN(cf.curve, FitCurve(pts, &cf.rms_log_error));
    cf.curve.max = std::min(cf.curve.max, 1.0);
    fit.curves.push_back(cf);
    const std::string how = "; fitted to " + std::to_string(cf.points) + " tuned cuBLASLt-style GEMM points (rms " +
                            Pct(cf.rms_log_error) + " in log)";
    if (wanted(base + ".max", true)) o.params[base + ".max"] = {cf.curve.max, origin + how};
    if (wanted(base + ".half", true)) o.params[base + ".half"] = {cf.curve.half, origin + how};
  }
  const StreamPoint* best_stream = nullptr;
  for (const auto& s : r.stream)
    if (s.Fraction() > 0 && (best_stream == nullptr || s.Fraction() > best_stream->Fraction())) best_stream = &s;
  if (best_stream != nullptr) {
    measurable.push_back("hbm");
    if (wanted("hbm", true))
      o.params["hbm"] = {std::min(best_stream->Fraction(), 1.0),
                         origin + "; " + best_stream->kernel + " kernel " + Pct(best_stream->Fraction()) +
                             " of HBM peak (the faster of copy and triad)"};
  }
  if (!r.decode.empty()) {
    measurable.push_back("attention.decode_bw");
    double sum = 0;
    for (const auto& d : r.decode) sum += d.Fraction();
    const double mean = sum / static_cast<double>(r.decode.size());
    if (wanted("attention.decode_bw", false) && mean > 0)
      o.params["attention.decode_bw"] = {std::min(mean, 1.0),
                                         origin + "; decode-attention kernel, mean of " +
                                             std::to_string(r.decode.size()) + " model shapes"};
  }
  for (const auto& name : only)
    if (std::find(measurable.begin(), measurable.end(), name) == measurable.end()) {
      std::string list;
      for (const auto& m : measurable) list += (list.empty() ? "" : ", ") + m;
      return InvalidArgument("--fit " + name + ": probe run " + run_label + " does not measure it; it measures " +
                             (list.empty() ? "nothing" : list));
    }
  if (o.params.empty()) return InvalidArgument("probe run " + run_label + " holds nothing to fit");
  return fit;
}

}  // namespace frontier::probe
