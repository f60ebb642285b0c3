#include "sim/fit/band.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/engine/hardware.h"
#include "sim/engine/catalog_json.h"
#include "sim/engine/model.h"
#include "sim/engine/stack.h"

namespace frontier::sim {
namespace {

// The 90th percentile, nearest rank, of |errors|.
double Percentile90(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

// The band key of a published result whose model and hardware are loaded.
Result<BandKey> KeyFrom(const PublishedResult& r, const ModelSpec& model, const Hardware& hw) {
  BandKey key;
  key.model_class = ModelClass(model);
  key.deployment = DeploymentKind(r.attention_dp, r.ep, false);
  key.vendor = hw.vendor;
  key.hardware = hw.name;
  Precision p = model.ffn_precision;
  if (r.precision != "native" && !r.precision.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p, ParsePrecision(r.precision, r.id + ": precision"));
  }
  key.precision = PrecisionName(p);
  key.peak_tflops = hw.PeakTflops(p);
  key.hbm_tbps = hw.hbm_tbps;
  return key;
}

double Distance(double peak_a, double bw_a, double peak_b, double bw_b) {
  if (!(peak_a > 0 && bw_a > 0 && peak_b > 0 && bw_b > 0)) return 0;
  return std::max(std::fabs(std::log(peak_a / peak_b)), std::fabs(std::log(bw_a / bw_b)));
}

}  // namespace

double SpecDistance(const Hardware& a, const Hardware& b, Precision p) {
  return Distance(a.PeakTflops(p), a.hbm_tbps, b.PeakTflops(p), b.hbm_tbps);
}

std::string DeploymentKind(bool attention_dp, int ep, bool disaggregated) {
  if (disaggregated) return "disagg";
  if (attention_dp) return "attn-dp+ep";
  return ep > 1 ? "ep" : "tp";
}

Result<BandKey> KeyOf(const PublishedResult& r, const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(r.model, data_dir));
  FRONTIER_ASSIGN_OR_RETURN(Hardware hw, LoadHardware(r.hardware, data_dir));
  return KeyFrom(r, model, hw);
}

BandKey KeyOf(const SimConfig& c) {
  BandKey key;
  key.model_class = ModelClass(c.model);
  key.deployment = DeploymentKind(c.attention_dp, c.ep, c.disagg.has_value());
  key.vendor = c.hardware.vendor;
  key.hardware = c.hardware.name;
  key.precision = PrecisionName(c.ffn_precision);
  key.peak_tflops = c.hardware.PeakTflops(c.ffn_precision);
  key.hbm_tbps = c.hardware.hbm_tbps;
  return key;
}

Status AssignCrossDistances(std::span<CalibratedError> fit, const std::map<std::string, Hardware>& gpus) {
  for (CalibratedError& e : fit) {
    e.cross_distance = 0;
    if (e.cross_gpu_error == 0) continue;
    Precision p = Precision::kBf16;
    FRONTIER_ASSIGN_OR_RETURN(p, ParsePrecision(e.key.precision, e.id + ": precision"));
    double nearest = 0;
    for (const CalibratedError& o : fit) {
      // Only a GPU whose results of this model class the refit still saw:
      // without one, the refit predicted a class it had no result of (the
      // MoE rows of a stack whose other GPU ran only dense models), which
      // measures the class's extrapolation, not the GPU's.
      if (o.key.hardware == e.key.hardware || o.key.model_class != e.key.model_class) continue;
      const auto hw = gpus.find(o.key.hardware);
      if (hw == gpus.end()) return NotFound(e.id + ": no hardware '" + o.key.hardware + "' for its cross-GPU distance");
      const double d = Distance(e.key.peak_tflops, e.key.hbm_tbps, hw->second.PeakTflops(p), hw->second.hbm_tbps);
      if (d > 0 && (nearest == 0 || d < nearest)) nearest = d;
    }
    e.cross_distance = nearest;
  }
  return Status::Ok();
}

Result<BandTable> BandTable::Load(const ValidationSet& set, const std::string& data_dir) {
  // Only published results that calibration may fit have a class here (a
  // measured run of a user's database does not). Each model and GPU is read
  // once: this runs at the start of every `frontier simulate`.
  std::map<std::string, const PublishedResult*> fittable;
  for (const auto& r : set.results)
    if (r.Calibratable()) fittable[r.id] = &r;
  std::map<std::string, ModelSpec> models;
  std::map<std::string, Hardware> gpus;
  std::vector<CalibratedError> errors;
  std::set<std::string> seen;
  for (const Stack& stack : ListStackVersions(data_dir)) {
    FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, catalog::ReadJsonFile(stack.file));
    if (!j.contains("calibration") || !j["calibration"].is_object()) continue;
    const auto& points = j["calibration"].value("points", nlohmann::json::array());
    if (!points.is_array()) continue;
    const size_t first = errors.size();
    for (const auto& p : points) {
      if (!p.is_object() || !p.contains("id") || !p["id"].is_string() || !p.contains("loo_error") ||
          !p["loo_error"].is_number())
        continue;
      const std::string id = p["id"].get<std::string>();
      const double loo = p["loo_error"].get<double>();
      const auto found = fittable.find(id);
      if (!std::isfinite(loo) || found == fittable.end() || !seen.insert(id).second) continue;
      const PublishedResult& r = *found->second;
      if (!models.count(r.model)) {
        FRONTIER_ASSIGN_OR_RETURN(models[r.model], LoadModel(r.model, data_dir));
      }
      if (!gpus.count(r.hardware)) {
        FRONTIER_ASSIGN_OR_RETURN(gpus[r.hardware], LoadHardware(r.hardware, data_dir));
      }
      FRONTIER_ASSIGN_OR_RETURN(BandKey key, KeyFrom(r, models.at(r.model), gpus.at(r.hardware)));
      CalibratedError e{id, std::move(key), loo};
      if (p.contains("cross_gpu_error") && p["cross_gpu_error"].is_number()) {
        const double cross = p["cross_gpu_error"].get<double>();
        if (std::isfinite(cross)) e.cross_gpu_error = cross;
      }
      errors.push_back(std::move(e));
    }
    FRONTIER_RETURN_IF_ERROR(AssignCrossDistances(std::span(errors).subspan(first), gpus));
  }
  std::vector<Hardware> calibrated;
  for (auto& [name, hw] : gpus) calibrated.push_back(hw);
  return FromErrors(std::move(errors), std::move(calibrated));
}

Result<BandTable> BandTable::LoadFrom(const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(ValidationSet set, LoadValidation(data_dir));
  return Load(set, data_dir);
}

BandTable BandTable::FromErrors(std::vector<CalibratedError> errors, std::vector<Hardware> gpus) {
  BandTable t;
  t.errors_ = std::move(errors);
  t.gpus_ = std::move(gpus);
  return t;
}

TransferRate BandTable::Transfer(const std::string& vendor) const {
  TransferRate out;
  for (const bool by_vendor : {true, false}) {
    std::vector<double> rates;
    for (const auto& e : errors_) {
      if (e.cross_distance <= 0 || (by_vendor && e.key.vendor != vendor)) continue;
      // The part of the cross-GPU error the GPU adds: beyond what leaving
      // out the point alone gives (independent errors add in squares).
      const double excess = e.cross_gpu_error * e.cross_gpu_error - e.loo_error * e.loo_error;
      rates.push_back(std::sqrt(std::max(0.0, excess)) / e.cross_distance);
    }
    if (rates.empty() || (by_vendor && static_cast<int>(rates.size()) < kMinBandPoints)) continue;
    out.rate = Percentile90(rates);
    out.points = static_cast<int>(rates.size());
    out.basis = by_vendor ? vendor : "all vendors";
    return out;
  }
  return out;
}

PredictionBand BandTable::For(const BandKey& key) const {
  PredictionBand band;
  // From the narrowest class to every calibrated result.
  struct Level {
    bool deployment, vendor, model_class;
  };
  const Level levels[] = {{true, true, true}, {false, true, true}, {false, false, true}, {false, false, false}};
  for (const Level& l : levels) {
    std::vector<double> abs;
    for (const auto& e : errors_) {
      if (l.model_class && e.key.model_class != key.model_class) continue;
      if (l.vendor && e.key.vendor != key.vendor) continue;
      if (l.deployment && e.key.deployment != key.deployment) continue;
      abs.push_back(std::fabs(e.loo_error));
    }
    const bool last = !l.model_class;
    if (static_cast<int>(abs.size()) < kMinBandPoints && !(last && !abs.empty())) continue;
    band.half_width = Percentile90(abs);
    band.points = static_cast<int>(abs.size());
    std::string basis = l.model_class ? key.model_class : "all classes";
    if (l.deployment) basis += " / " + key.deployment;
    if (l.vendor) basis += " / " + key.vendor;
    band.basis = basis;
    break;
  }
  if (!IsCalibrationGpu(key.hardware)) {
    band.flags.push_back("GPU never calibrated (" + key.hardware + ")");
    // The transfer part: rate x distance to the nearest calibrated GPU of the
    // vendor (of any vendor when calibration fitted none of this one).
    Result<Precision> p = ParsePrecision(key.precision, "precision");
    const TransferRate rate = Transfer(key.vendor);
    double nearest = 0, nearest_bw = 0;
    std::string near_name;
    for (const bool by_vendor : {true, false}) {
      for (const Hardware& hw : gpus_) {
        if (!p.ok() || (by_vendor && hw.vendor != key.vendor) || !(key.hbm_tbps > 0 && hw.hbm_tbps > 0)) continue;
        // Ties (equal peaks) go to the GPU nearer in bandwidth.
        const double d = Distance(key.peak_tflops, key.hbm_tbps, hw.PeakTflops(*p), hw.hbm_tbps);
        const double bw = std::fabs(std::log(key.hbm_tbps / hw.hbm_tbps));
        if (d <= 0) continue;
        if (nearest == 0 || d < nearest - 1e-12 || (d <= nearest + 1e-12 && bw < nearest_bw)) {
          nearest = d;
          nearest_bw = bw;
          near_name = hw.name;
        }
      }
      if (nearest > 0) break;
    }
    if (rate.points > 0 && nearest > 0 && band.points > 0) {
      const double transfer = rate.rate * nearest;
      band.half_width = std::sqrt(band.half_width * band.half_width + transfer * transfer);
      char buf[160];
      std::snprintf(buf, sizeof buf, " + transfer %.0f%% (%.2f from %s)", 100 * transfer, nearest,
                    near_name.c_str());
      band.basis += buf;
    }
  }
  bool precision = false, deployment = false;
  for (const auto& e : errors_) {
    if (e.key.vendor != key.vendor) continue;
    precision = precision || e.key.precision == key.precision;
    deployment = deployment || e.key.deployment == key.deployment;
  }
  if (!precision) band.flags.push_back(key.precision + " never calibrated on " + key.vendor);
  if (!deployment) band.flags.push_back(key.deployment + " never calibrated on " + key.vendor);
  return band;
}

std::optional<PredictionBand> BandOf(const SimConfig& config, const std::string& data_dir, std::string* note) {
  Result<BandTable> bands = BandTable::LoadFrom(data_dir.empty() ? DefaultDataDir() : data_dir);
  if (!bands.ok()) {
    *note = bands.status().message();
    return std::nullopt;
  }
  return bands->For(KeyOf(config));
}

std::string BandLine(const std::optional<PredictionBand>& band, const std::string& note) {
  return "prediction band: " + (band ? band->DescribeWithFlags() : "unavailable (" + note + ")") + "\n";
}

}  // namespace frontier::sim
