#include "sim/band.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/hardware.h"
#include "sim/internal/json_util.h"
#include "sim/model.h"
#include "sim/stack.h"

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
  if (r.precision == "native" || r.precision.empty()) {
    key.precision = PrecisionName(model.ffn_precision);
  } else {
    FRONTIER_ASSIGN_OR_RETURN(Precision p, ParsePrecision(r.precision, r.id + ": precision"));
    key.precision = PrecisionName(p);
  }
  return key;
}

}  // namespace

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
  return key;
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
    FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, internal::ReadJsonFile(stack.file));
    if (!j.contains("calibration") || !j["calibration"].is_object()) continue;
    const auto& points = j["calibration"].value("points", nlohmann::json::array());
    if (!points.is_array()) continue;
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
      errors.push_back({id, std::move(key), loo});
    }
  }
  return FromErrors(std::move(errors));
}

Result<BandTable> BandTable::LoadFrom(const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(ValidationSet set, LoadValidation(data_dir));
  return Load(set, data_dir);
}

BandTable BandTable::FromErrors(std::vector<CalibratedError> errors) {
  BandTable t;
  t.errors_ = std::move(errors);
  return t;
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
  if (!IsCalibrationGpu(key.hardware)) band.flags.push_back("GPU never calibrated (" + key.hardware + ")");
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

}  // namespace frontier::sim
