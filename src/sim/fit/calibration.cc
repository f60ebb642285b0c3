#include "sim/fit/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "sim/fit/internal/parallel.h"

namespace frontier::sim {
namespace {

// Parameter j <-> its unbounded coordinate z_j.
struct Coord {
  const ParamInfo* info;
  bool fraction;  // logit on (lo, hi); else log
};

// Fractions on the logit of their range; times and sizes on log(1 + p), so
// that a cost whose prior is 0 (an extra floor not yet measured) can move.
double ToZ(const Coord& c, double p) {
  if (c.fraction) {
    const double u = std::clamp((p - c.info->lo) / (c.info->hi - c.info->lo), 1e-6, 1 - 1e-6);
    return std::log(u / (1 - u));
  }
  return std::log1p(std::max(p, 0.0));
}

double FromZ(const Coord& c, double z) {
  if (c.fraction) return c.info->lo + (c.info->hi - c.info->lo) / (1 + std::exp(-z));
  return std::clamp(std::expm1(z), c.info->lo, c.info->hi);
}

// The log errors a model contributes (throughput, and the published mean
// TPOT and TTFT where given), under `p`.
void LogErrors(const ResultModel& m, const StackParams& p, std::vector<double>* out) {
  const PublishedResult& r = m.result();
  if (!r.mean_tpot_ms && !r.mean_ttft_ms) {
    out->push_back(std::log(std::max(1e-30, m.Replay(p)) / r.value));
    return;
  }
  const ResultModel::Metrics x = m.ReplayMetrics(p);
  out->push_back(std::log(std::max(1e-30, x.output_tokens_per_s) / r.value));
  if (r.mean_tpot_ms) out->push_back(std::log(std::max(1e-30, x.mean_tpot_ms) / *r.mean_tpot_ms));
  if (r.mean_ttft_ms) out->push_back(std::log(std::max(1e-30, x.mean_ttft_ms) / *r.mean_ttft_ms));
}

// Solves A x = b (n x n, row-major) by Gaussian elimination with partial
// pivoting. Returns false when A is singular.
bool Solve(std::vector<double> a, std::vector<double> b, int n, std::vector<double>* x) {
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[piv * n + col])) piv = r;
    if (std::fabs(a[piv * n + col]) < 1e-300) return false;
    if (piv != col) {
      for (int k = 0; k < n; ++k) std::swap(a[col * n + k], a[piv * n + k]);
      std::swap(b[col], b[piv]);
    }
    for (int r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (int k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  x->assign(n, 0);
  for (int r = n - 1; r >= 0; --r) {
    double v = b[r];
    for (int k = r + 1; k < n; ++k) v -= a[r * n + k] * (*x)[k];
    (*x)[r] = v / a[r * n + r];
  }
  return true;
}

class Fitter {
 public:
  Fitter(const StackParams& base, const StackParams& priors, std::vector<Coord> coords,
         const CalibrationOptions& o, CalibrationResult* stats)
      : base_(base), coords_(std::move(coords)), o_(o), stats_(stats) {
    for (const auto& c : coords_) z0_.push_back(ToZ(c, GetParam(priors, c.info->name)));
  }

  StackParams Params(const std::vector<double>& z) const {
    StackParams p = base_;
    for (size_t j = 0; j < coords_.size(); ++j) SetParam(p, coords_[j].info->name, FromZ(coords_[j], z[j]));
    return p;
  }

  // Robust cost of `z` over `models` (skipping index `skip`); fills residuals
  // (log errors of the models, then the ridge terms) when asked.
  double Cost(const std::vector<double>& z, const std::vector<ResultModel*>& models, std::vector<double>* res) const {
    const StackParams p = Params(z);
    double cost = 0;
    if (res != nullptr) res->clear();
    auto add = [&](double log_error) {
      const double v = log_error / o_.loss_scale;  // in units of s
      if (res != nullptr) res->push_back(v);
      cost += 2 * (std::sqrt(1 + v * v) - 1);
    };
    std::vector<double> errors;
    for (const ResultModel* m : models) {
      ++stats_->replays;
      errors.clear();
      LogErrors(*m, p, &errors);
      for (double e : errors) add(e);
    }
    for (size_t j = 0; j < z.size(); ++j) {
      const double r = (z[j] - z0_[j]) / o_.prior_sigma;
      if (res != nullptr) res->push_back(r);
      cost += r * r;
    }
    return cost;
  }

  // Levenberg-Marquardt on the iteratively re-weighted residuals.
  std::vector<double> Fit(std::vector<double> z, const std::vector<ResultModel*>& models) const {
    const int n = static_cast<int>(z.size());
    std::vector<double> r, r2;
    double cost = Cost(z, models, &r);
    double lambda = 1e-2;
    for (int it = 0; it < o_.max_iterations; ++it) {
      ++stats_->iterations;
      // Weights: soft-L1 on the model residuals, 1 on the ridge.
      std::vector<double> w(r.size(), 1.0);
      for (size_t i = 0; i + z.size() < r.size(); ++i) w[i] = 1.0 / std::sqrt(1 + r[i] * r[i]);
      // Jacobian by forward differences.
      std::vector<double> jac(r.size() * n);
      for (int j = 0; j < n; ++j) {
        std::vector<double> zj = z;
        const double h = 1e-4 * std::max(1.0, std::fabs(z[j]));
        zj[j] += h;
        Cost(zj, models, &r2);
        for (size_t i = 0; i < r.size(); ++i) jac[i * n + j] = (r2[i] - r[i]) / h;
      }
      std::vector<double> jtj(n * n, 0), jtr(n, 0);
      for (size_t i = 0; i < r.size(); ++i)
        for (int a = 0; a < n; ++a) {
          jtr[a] -= w[i] * jac[i * n + a] * r[i];
          for (int b = 0; b < n; ++b) jtj[a * n + b] += w[i] * jac[i * n + a] * jac[i * n + b];
        }
      bool improved = false;
      for (int tries = 0; tries < 10 && !improved; ++tries) {
        std::vector<double> a = jtj, step;
        for (int d = 0; d < n; ++d) a[d * n + d] += lambda * (jtj[d * n + d] + 1e-9);
        if (!Solve(a, jtr, n, &step)) {
          lambda *= 10;
          continue;
        }
        std::vector<double> zn = z;
        double norm = 0;
        for (int d = 0; d < n; ++d) {
          zn[d] += std::clamp(step[d], -3.0, 3.0);
          norm = std::max(norm, std::fabs(step[d]));
        }
        std::vector<double> rn;
        const double cn = Cost(zn, models, &rn);
        if (cn < cost) {
          improved = true;
          const double gain = cost - cn;
          z = zn;
          r = rn;
          cost = cn;
          lambda = std::max(1e-7, lambda / 3);
          if (norm < 1e-5 || gain < 1e-12) return z;
        } else {
          lambda *= 4;
        }
      }
      if (!improved) break;
    }
    return z;
  }

  const std::vector<double>& z0() const { return z0_; }

 private:
  StackParams base_;
  std::vector<Coord> coords_;
  std::vector<double> z0_;
  const CalibrationOptions& o_;
  CalibrationResult* stats_;
};

// The runtime reserve, in GB, at which `m`'s deployment has no KV cache left:
// its cache plus the reserve it holds now.
double EmptyCacheReserveGb(const ResultModel& m) {
  const MemoryPlan& plan = m.config().memory;
  return (plan.kv + plan.runtime_reserve) / 1e9;
}

// Why the models cannot identify `info` ("" when they can): no point lies in
// its scope, or moving it (by 0.5 on its fitting scale: x1.6 for a time,
// +0.5 on the logit of a fraction) moves no prediction by 0.5 %.
//
// A schedule parameter (efficiency.h: the runtime reserve) moves no replay:
// each point is simulated again, on a copy, with the reserve leaving 50, 10
// and 2 % of the smallest deployment's KV cache (a cache that does not bind
// at the prior may bind further on); a value that leaves a deployment no
// cache is skipped.
std::string Unidentified(const ParamInfo& info, const StackParams& at, const std::vector<ResultModel>& models) {
  bool in_scope = false;
  for (const auto& m : models) in_scope = in_scope || InScope(info.scope, m.config());
  if (!in_scope) return std::string("no point is of ") + ParamScopeName(info.scope);
  const Coord c{&info, info.hi <= 1.0};
  std::vector<double> probes = {FromZ(c, ToZ(c, GetParam(at, info.name)) + 0.5)};
  if (info.schedule) {
    double full = std::numeric_limits<double>::infinity();
    for (const auto& m : models) full = std::min(full, EmptyCacheReserveGb(m));
    probes.clear();
    for (const double left : {0.5, 0.1, 0.02}) probes.push_back(full - left * (full - info.lo));
  }
  std::vector<double> a, b;
  double largest = 0;
  for (const double probe : probes) {
    StackParams moved = at;
    SetParam(moved, info.name, probe);
    for (const auto& m : models) {
      a.clear();
      b.clear();
      LogErrors(m, at, &a);
      if (info.schedule) {
        ResultModel copy = m;
        if (!copy.Simulate(moved).ok()) continue;
        LogErrors(copy, moved, &b);
      } else {
        LogErrors(m, moved, &b);
      }
      for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(b[i] - a[i]));
    }
  }
  if (largest < 0.005) {
    char why[120];
    std::snprintf(why, sizeof why, "moving it moves no prediction by 0.5 %% (at most %.2f %%)", 100 * largest);
    return why;
  }
  return "";
}

// Fits from each of `starts` and keeps the lowest cost, then fits again
// after re-simulating the models whose replay is not exact at the fit (their
// traces or Server ratios move with the parameters), until replay and
// simulation agree within 0.2 % or the simulation's own resolution (a Server
// rate search's last bisection interval), or after `outer_rounds` fits.
Result<std::vector<double>> FitAll(const Fitter& fitter, const std::vector<std::vector<double>>& starts,
                                   const std::vector<ResultModel*>& use, const CalibrationOptions& o,
                                   CalibrationResult* stats) {
  std::vector<double> z;
  double best = 0;
  for (const auto& start : starts) {
    std::vector<double> zs = fitter.Fit(start, use);
    const double cost = fitter.Cost(zs, use, nullptr);
    if (z.empty() || cost < best) {
      z = std::move(zs);
      best = cost;
    }
  }
  for (int round = 0; round < o.outer_rounds; ++round) {
    if (round > 0) z = fitter.Fit(z, use);
    const StackParams p = fitter.Params(z);
    bool agree = true;
    for (ResultModel* m : use) {
      if (m->exact_replay()) continue;  // its replay is what a simulation would give
      const double replayed = m->Replay(p);
      FRONTIER_ASSIGN_OR_RETURN(double fresh, m->Simulate(p));
      ++stats->simulations;
      if (std::fabs(replayed / fresh - 1) > std::max(0.002, m->resolution())) agree = false;
    }
    if (agree) break;
  }
  return z;
}

// The rate parameters (those a replay sees) and at most one schedule
// parameter of a fit.
struct Coords {
  std::vector<Coord> rate;
  std::optional<Coord> schedule;
};

// A fit over `use`: its parameters and the rate parameters' coordinates.
struct PointFit {
  StackParams params;
  std::vector<double> z;
};

// Fits `use`. Without a schedule parameter: FitAll from `starts` (rate
// coordinates). With one (the runtime reserve, R: whatever it takes the KV
// cache loses), every value of R is a new schedule, so each value tried
// re-simulates every point and fits the rate parameters to it; the objective
// adds R's ridge term. The search runs on v = log(M - R), the log of the KV
// cache left, where M is the reserve at which the smallest deployment's
// cache is empty: equal steps of v are equal fractions of the cache, which
// sets how many requests fit. A scan of kScheduleGrid values of v spread
// from 1 % to all of M, then a golden-section search between the best scan
// value's neighbours (kScheduleGolden steps narrow it to 1 % of the cache;
// the objective is a step function of R, flat between the values where one
// request more or fewer fits, so the scan keeps the search from a flat
// stretch far from the minimum). The models end simulated at the chosen
// value, their traces fresh for Replay().
constexpr int kScheduleGrid = 7;
constexpr int kScheduleGolden = 10;

Result<PointFit> FitPoints(const StackParams& start, const StackParams& priors, const Coords& coords,
                           const std::vector<std::vector<double>>& starts, const std::vector<ResultModel*>& use,
                           const CalibrationOptions& o, CalibrationResult* stats) {
  if (!coords.schedule) {
    const Fitter fitter(start, priors, coords.rate, o, stats);
    FRONTIER_ASSIGN_OR_RETURN(std::vector<double> z, FitAll(fitter, starts, use, o, stats));
    return PointFit{fitter.Params(z), z};
  }
  const Coord& sc = *coords.schedule;
  const std::string name = sc.info->name;
  const double s0 = ToZ(sc, GetParam(priors, name));
  double full = std::numeric_limits<double>::infinity();  // M
  for (const ResultModel* m : use) full = std::min(full, EmptyCacheReserveGb(*m));
  const double floor = sc.info->lo;
  if (!(full > floor)) return FailedPrecondition("no value of " + name + " leaves every deployment a KV cache");
  const double lo = std::log(0.01 * (full - floor)), hi = std::log(full - floor);
  auto reserve = [&](double v) { return std::clamp(full - std::exp(v), floor, sc.info->hi); };

  struct Tried {
    double s = 0, cost = std::numeric_limits<double>::infinity();
    std::vector<double> z;
  };
  // The rate fit at each value starts from `starts` until one value has
  // fitted, then from the best fit so far (the rate parameters move little
  // from one value to the next; starting each value afresh too cost 1.6x
  // the time and found the same fit on the TensorRT-LLM points).
  std::vector<std::vector<double>> from = starts;
  auto at = [&](double s) -> Result<Tried> {
    Tried t;
    t.s = s;
    StackParams base = start;
    SetParam(base, name, reserve(s));
    const Fitter fitter(base, priors, coords.rate, o, stats);
    for (ResultModel* m : use) {
      Result<double> r = m->Simulate(fitter.Params(from.back()));
      ++stats->simulations;
      if (!r.ok()) {
        if (r.status().code() == StatusCode::kFailedPrecondition) return t;  // does not fit: infinite cost
        return r.status();
      }
    }
    FRONTIER_ASSIGN_OR_RETURN(t.z, FitAll(fitter, from, use, o, stats));
    const double ridge = (ToZ(sc, reserve(s)) - s0) / o.prior_sigma;
    t.cost = fitter.Cost(t.z, use, nullptr) + ridge * ridge;
    return t;
  };
  Tried best;
  for (int i = 0; i < kScheduleGrid; ++i) {
    FRONTIER_ASSIGN_OR_RETURN(Tried t, at(lo + (hi - lo) * i / (kScheduleGrid - 1)));
    if (t.cost < best.cost) {
      best = t;
      from = {best.z};
    }
  }
  if (!std::isfinite(best.cost))
    return FailedPrecondition("no value of " + name + " lets every deployment fit its KV cache");
  // Golden-section search between the best scan point's neighbours.
  const double cell = (hi - lo) / (kScheduleGrid - 1);
  double a = std::max(lo, best.s - cell), b = std::min(hi, best.s + cell);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double c = b - g * (b - a), d = a + g * (b - a);
  FRONTIER_ASSIGN_OR_RETURN(Tried tc, at(c));
  FRONTIER_ASSIGN_OR_RETURN(Tried td, at(d));
  for (int i = 0; i < kScheduleGolden; ++i) {
    if (tc.cost < best.cost) best = tc;
    if (td.cost < best.cost) best = td;
    from = {best.z};
    if (tc.cost <= td.cost) {
      b = d;
      d = c;
      td = tc;
      c = b - g * (b - a);
      FRONTIER_ASSIGN_OR_RETURN(tc, at(c));
    } else {
      a = c;
      c = d;
      tc = td;
      d = a + g * (b - a);
      FRONTIER_ASSIGN_OR_RETURN(td, at(d));
    }
  }
  if (tc.cost < best.cost) best = tc;
  if (td.cost < best.cost) best = td;
  // Simulate again at the choice (the last value tried may be another).
  FRONTIER_ASSIGN_OR_RETURN(Tried chosen, at(best.s));
  StackParams base = start;
  SetParam(base, name, reserve(best.s));
  const Fitter fitter(base, priors, coords.rate, o, stats);
  return PointFit{fitter.Params(chosen.z), chosen.z};
}

// The parameters `candidates` name (from --fit, or else the stack file's
// list). Fails on a name that is unknown or listed twice.
Result<std::vector<const ParamInfo*>> FindParams(const std::vector<std::string>& candidates, const Stack& stack,
                                                 const CalibrationOptions& o) {
  // Where the names came from, for the message: --fit, or the stack file's list.
  const std::string source = o.free.empty() ? stack.file + ": calibration.free" : std::string("--fit");
  std::vector<const ParamInfo*> infos;
  for (const auto& name : candidates) {
    const ParamInfo* info = FindParam(name);
    if (info == nullptr) {
      std::string known;
      for (const auto& p : StackParamInfo()) known += (known.empty() ? "" : ", ") + std::string(p.name);
      return InvalidArgument(source + ": unknown parameter '" + name + "'; known: " + known);
    }
    if (std::find(infos.begin(), infos.end(), info) != infos.end())
      return InvalidArgument(source + ": parameter '" + name + "' listed twice; name each parameter once");
    infos.push_back(info);
  }
  return infos;
}

// A refit without a set of points, predicting the points it left out.
struct LeaveOut {
  std::vector<size_t> out;          // indices of the points left out
  bool cross_gpu = false;
  CalibrationResult stats;          // iterations, replays, simulations of this refit
  Status status = Status::Ok();
  std::vector<double> predicted;    // per index in `out`
};

// The refits `o` asks for: one per point (leave-one-out), then one per GPU
// (cross-GPU) where there are several.
std::vector<LeaveOut> LeaveOuts(const std::vector<ResultModel>& models, const CalibrationOptions& o) {
  std::vector<LeaveOut> tasks;
  if (o.leave_one_out && models.size() > 1) {
    for (size_t i = 0; i < models.size(); ++i) {
      tasks.emplace_back();
      tasks.back().out = {i};
    }
    std::map<std::string, std::vector<size_t>> by_gpu;
    for (size_t i = 0; i < models.size(); ++i) by_gpu[models[i].config().hardware.name].push_back(i);
    if (o.cross_gpu && by_gpu.size() > 1)
      for (auto& [gpu, indices] : by_gpu) {
        tasks.emplace_back();
        tasks.back().out = indices;
        tasks.back().cross_gpu = true;
      }
  }
  return tasks;
}

// Refits without `l.out` and predicts those points. Each refit on its own
// fitter and copies (independent of the others: the result does not depend
// on the order or the threads).
void Refit(LeaveOut& l, std::vector<ResultModel>& models, const StackParams& start, const StackParams& priors,
           const Coords& coords, const std::vector<double>& z, const std::vector<double>& z0,
           const CalibrationOptions& o) {
  // On the other points only. Models whose replay is exact are shared
  // (their traces do not depend on the parameters; Replay() only reads)
  // unless a schedule parameter is fitted (every value re-simulates); the
  // others are copies that follow this refit's own outer rounds, so that
  // nothing fitted with a left-out point in the set reaches its prediction.
  std::vector<ResultModel> copies;
  copies.reserve(models.size());
  std::vector<ResultModel*> rest;
  for (size_t k = 0; k < models.size(); ++k) {
    if (std::find(l.out.begin(), l.out.end(), k) != l.out.end()) continue;
    if (models[k].exact_replay() && !coords.schedule) {
      rest.push_back(&models[k]);
    } else {
      copies.push_back(models[k]);
      rest.push_back(&copies.back());
    }
  }
  // The objective leaves the points out entirely. The search starts from
  // the priors and from the full fit (near the refit's optimum: fewer
  // iterations and outer rounds) and keeps the lower cost.
  Result<PointFit> fi = FitPoints(start, priors, coords, {z, z0}, rest, o, &l.stats);
  if (!fi.ok()) {
    l.status = fi.status();
    return;
  }
  const StackParams& p = fi->params;
  for (size_t i : l.out) {
    if (models[i].exact_replay() && !coords.schedule) {
      l.predicted.push_back(models[i].Replay(p));  // equal to a fresh simulation (validation.h)
      continue;
    }
    ResultModel copy = models[i];
    Result<double> fresh = copy.Simulate(p);
    ++l.stats.simulations;
    if (!fresh.ok()) {
      l.status = fresh.status();
      return;
    }
    l.predicted.push_back(*fresh);
  }
}

}  // namespace

Result<CalibrationResult> Calibrate(const Stack& stack, std::vector<ResultModel>& models,
                                    const CalibrationOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  CalibrationResult out;
  const std::vector<std::string> candidates = o.free.empty() ? stack.free_params : o.free;
  if (candidates.empty())
    return InvalidArgument("no free parameters: give --fit name,... or list them in " + stack.file +
                           " under calibration.free");
  if (models.empty()) return InvalidArgument("nothing to calibrate " + stack.id() + " on: no measured points");
  FRONTIER_ASSIGN_OR_RETURN(const std::vector<const ParamInfo*> infos, FindParams(candidates, stack, o));

  // The fit starts from the priors: every earlier fit of this version is
  // withdrawn (to its parent's value, or the prior its file keeps), so what
  // the fit finds, which parameters it finds identified and every
  // leave-one-out refit depend on the points and the priors only, never on
  // the values a previous fit left in the file. Refitting a fitted file, or
  // `frontier validate` refitting it, gives the fit it records. The file this
  // fit writes withdraws the earlier fits of what it does not fit, too
  // (WriteCalibratedStack), so its predictions are those of the parameters
  // it holds.
  const StackParams start = stack.priors;
  for (auto& m : models) {
    m.ColdStart();
    FRONTIER_RETURN_IF_ERROR(m.Simulate(start).status());
    ++out.simulations;
  }
  // Fit only what the points identify; the rest keep their values (their
  // predecessor's, or their own source's).
  Coords coords;
  for (const ParamInfo* info : infos) {
    const std::string why = Unidentified(*info, start, models);
    if (!why.empty()) {
      out.not_identified.push_back({info->name, why});
      continue;
    }
    out.free.push_back(info->name);
    const Coord c{info, info->hi <= 1.0};
    if (!info->schedule) {
      coords.rate.push_back(c);
    } else if (coords.schedule) {
      return InvalidArgument("--fit: " + std::string(coords.schedule->info->name) + " and " + info->name +
                             " both set the schedule; fit at most one of them at a time");
    } else {
      coords.schedule = c;
    }
  }
  if (out.free.empty()) {
    std::string list;
    for (const auto& [name, why] : out.not_identified) list += (list.empty() ? "" : "; ") + name + ": " + why;
    return InvalidArgument("the " + std::to_string(models.size()) + " points identify none of the parameters to fit "
                           "(" + list + ")");
  }
  const std::vector<double> z0 = Fitter(start, stack.priors, coords.rate, o, &out).z0();
  std::vector<ResultModel*> all;
  for (auto& m : models) all.push_back(&m);

  FRONTIER_ASSIGN_OR_RETURN(const PointFit fit, FitPoints(start, stack.priors, coords, {z0}, all, o, &out));
  const std::vector<double>& z = fit.z;
  out.params = fit.params;
  for (auto& m : models) {
    CalibratedPoint pt;
    pt.id = m.result().id;
    pt.model_class = ModelClass(m.config().model);
    pt.hardware = m.config().hardware.name;
    pt.measured = m.result().value;
    pt.predicted = m.Replay(out.params);  // traces are fresh at the fit
    pt.error = pt.predicted / pt.measured - 1;
    out.points.push_back(pt);
  }

  // Refits without a set of points, each predicting the points it left
  // out: one per point (leave-one-out), then one per GPU (cross-GPU).
  std::vector<LeaveOut> tasks = LeaveOuts(models, o);
  std::vector<std::function<void()>> refits;
  for (LeaveOut& l : tasks) refits.push_back([&] { Refit(l, models, start, stack.priors, coords, z, z0, o); });
  internal::RunAll(refits, o.threads);
  for (const LeaveOut& l : tasks) {
    FRONTIER_RETURN_IF_ERROR(l.status);
    out.iterations += l.stats.iterations;
    out.replays += l.stats.replays;
    out.simulations += l.stats.simulations;
    for (size_t k = 0; k < l.out.size(); ++k) {
      CalibratedPoint& pt = out.points[l.out[k]];
      if (l.cross_gpu) {
        pt.cross_gpu_predicted = l.predicted[k];
        pt.cross_gpu_error = l.predicted[k] / pt.measured - 1;
      } else {
        pt.loo_predicted = l.predicted[k];
        pt.loo_error = l.predicted[k] / pt.measured - 1;
      }
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace frontier::sim
