#include "sim/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "core/atomic_file.h"
#include "sim/internal/json_util.h"

namespace frontier::sim {
namespace {

// Parameter j <-> its unbounded coordinate z_j.
struct Coord {
  const ParamInfo* info;
  bool fraction;  // logit on (lo, hi); else log
};

double ToZ(const Coord& c, double p) {
  if (c.fraction) {
    const double u = std::clamp((p - c.info->lo) / (c.info->hi - c.info->lo), 1e-6, 1 - 1e-6);
    return std::log(u / (1 - u));
  }
  return std::log(std::max(p, 1e-6));
}

double FromZ(const Coord& c, double z) {
  if (c.fraction) return c.info->lo + (c.info->hi - c.info->lo) / (1 + std::exp(-z));
  return std::clamp(std::exp(z), c.info->lo, c.info->hi);
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
    auto add = [&](double predicted, double measured) {
      const double v = std::log(std::max(1e-30, predicted) / measured) / o_.loss_scale;  // in units of s
      if (res != nullptr) res->push_back(v);
      cost += 2 * (std::sqrt(1 + v * v) - 1);
    };
    for (const ResultModel* m : models) {
      ++stats_->replays;
      const PublishedResult& r = m->result();
      if (!r.mean_tpot_ms && !r.mean_ttft_ms) {
        add(m->Replay(p), r.value);
        continue;
      }
      const ResultModel::Metrics x = m->ReplayMetrics(p);
      add(x.output_tokens_per_s, r.value);
      if (r.mean_tpot_ms) add(x.mean_tpot_ms, *r.mean_tpot_ms);
      if (r.mean_ttft_ms) add(x.mean_ttft_ms, *r.mean_ttft_ms);
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

std::string Today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Result<CalibrationResult> Calibrate(const Stack& stack, std::vector<ResultModel>& models,
                                    const CalibrationOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  CalibrationResult out;
  out.free = o.free.empty() ? stack.free_params : o.free;
  if (out.free.empty())
    return InvalidArgument("no free parameters: give --fit name,... or list them in " + stack.file +
                           " under calibration.free");
  if (models.empty()) return InvalidArgument("nothing to calibrate " + stack.id() + " on: no measured points");
  std::vector<Coord> coords;
  for (const auto& name : out.free) {
    const ParamInfo* info = FindParam(name);
    if (info == nullptr) {
      std::string known;
      for (const auto& p : StackParamInfo()) known += (known.empty() ? "" : ", ") + std::string(p.name);
      return InvalidArgument("--fit: unknown parameter '" + name + "'; known: " + known);
    }
    for (const auto& c : coords)
      if (c.info == info) return InvalidArgument("--fit: parameter '" + name + "' given twice");
    coords.push_back(Coord{info, info->hi <= 1.0});
  }
  Fitter fitter(stack.params, stack.priors, coords, o, &out);

  // Traces at the starting point.
  for (auto& m : models) {
    FRONTIER_RETURN_IF_ERROR(m.Simulate(stack.params).status());
    ++out.simulations;
  }
  std::vector<ResultModel*> all;
  for (auto& m : models) all.push_back(&m);

  auto fit_all = [&](std::vector<double> z, const std::vector<ResultModel*>& use) -> Result<std::vector<double>> {
    for (int round = 0; round < o.outer_rounds; ++round) {
      z = fitter.Fit(z, use);
      // Re-simulate at the fit and compare with the replayed predictions.
      const StackParams p = fitter.Params(z);
      double worst = 0;
      for (ResultModel* m : use) {
        if (m->exact_replay()) continue;  // its replay is what a simulation would give
        const double replayed = m->Replay(p);
        FRONTIER_ASSIGN_OR_RETURN(double fresh, m->Simulate(p));
        ++out.simulations;
        worst = std::max(worst, std::fabs(replayed / fresh - 1));
      }
      if (worst < 0.002) break;
    }
    return z;
  };

  FRONTIER_ASSIGN_OR_RETURN(std::vector<double> z, fit_all(fitter.z0(), all));
  out.params = fitter.Params(z);
  for (auto& m : models) {
    CalibratedPoint pt;
    pt.id = m.result().id;
    pt.measured = m.result().value;
    pt.predicted = m.Replay(out.params);  // traces are fresh at the fit
    pt.error = pt.predicted / pt.measured - 1;
    out.points.push_back(pt);
  }

  if (o.leave_one_out && models.size() > 1) {
    for (size_t i = 0; i < models.size(); ++i) {
      std::vector<ResultModel*> rest;
      for (size_t k = 0; k < models.size(); ++k)
        if (k != i) rest.push_back(&models[k]);
      // From the priors, on the other points only (their traces, recorded at
      // the full fit, do not depend on the parameters).
      std::vector<double> zi = fitter.z0();
      zi = fitter.Fit(zi, rest);
      const StackParams p = fitter.Params(zi);
      double pred = 0;
      if (models[i].exact_replay()) {
        pred = models[i].Replay(p);  // equal to a fresh simulation (validation.h)
      } else {
        // Simulate a copy: the model keeps its trace and Server ratio at the
        // full fit for the other refits.
        ResultModel copy = models[i];
        FRONTIER_ASSIGN_OR_RETURN(pred, copy.Simulate(p));
        ++out.simulations;
      }
      out.points[i].loo_predicted = pred;
      out.points[i].loo_error = pred / out.points[i].measured - 1;
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

Status WriteCalibratedStack(const Stack& stack, const CalibrationResult& result, const std::string& base_path,
                            const std::string& path, const std::string& version, const std::string& note) {
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, internal::ReadJsonFile(base_path));
  const std::string date = Today();
  std::string fitted_to;
  for (const auto& p : result.points) fitted_to += (fitted_to.empty() ? "" : ", ") + p.id;
  j["version"] = version;
  for (const auto& name : result.free) {
    auto& entry = j["parameters"][name];
    const double prior = GetParam(stack.priors, name);
    const std::string prior_source =
        entry.contains("prior_source") ? entry["prior_source"].get<std::string>()
        : stack.sources.count(name) && stack.sources.at(name).rfind("fitted:", 0) != 0 ? stack.sources.at(name)
                                                                                       : "";
    entry["value"] = GetParam(result.params, name);
    entry["source"] = "fitted: frontier calibrate " + date + " (robust least squares on log error) to " +
                      std::to_string(result.points.size()) + " points: " + fitted_to;
    entry["prior"] = prior;
    if (!prior_source.empty()) entry["prior_source"] = prior_source;
  }
  nlohmann::json c;
  c["date"] = date;
  c["note"] = note;
  c["method"] = "robust least squares (soft-L1, scale 5 % on log error) with a ridge toward the priors; "
                "Levenberg-Marquardt; leave-one-out refits from the priors";
  c["free"] = result.free;
  c["fitted_to"] = nlohmann::json::array();
  c["points"] = nlohmann::json::array();
  for (const auto& p : result.points) {
    c["fitted_to"].push_back(p.id);
    nlohmann::json q;
    q["id"] = p.id;
    q["measured"] = p.measured;
    q["predicted"] = std::round(p.predicted * 100) / 100;
    q["error"] = std::round(p.error * 10000) / 10000;
    if (p.loo_predicted > 0) {
      q["loo_predicted"] = std::round(p.loo_predicted * 100) / 100;
      q["loo_error"] = std::round(p.loo_error * 10000) / 10000;
    }
    c["points"].push_back(q);
  }
  j["calibration"] = c;
  return WriteFileAtomically(path, j.dump(2) + "\n");
}

}  // namespace frontier::sim
