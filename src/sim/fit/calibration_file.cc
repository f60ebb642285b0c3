// WriteCalibratedStack (calibration.h): a calibration written into a stack
// file. The fit itself is in calibration.cc.
#include "sim/fit/calibration.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "core/atomic_file.h"
#include "sim/engine/catalog_json.h"

namespace frontier::sim {
namespace {

std::string Today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Status WriteCalibratedStack(const Stack& stack, const CalibrationResult& result, const std::string& base_path,
                            const std::string& path, const std::string& version, const std::string& note) {
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, catalog::ReadJsonFile(base_path));
  const std::string date = Today();
  std::string fitted_to;
  for (const auto& p : result.points) fitted_to += (fitted_to.empty() ? "" : ", ") + p.id;
  // The file was checked when its stack was loaded; these guard the few
  // fields read again here, so a file edited since is named, not thrown at.
  if (!j.is_object() || (j.contains("parameters") && !j["parameters"].is_object()))
    return InvalidArgument(base_path + ": parameters must be a JSON object (the stack file changed since it was read?)");
  auto prior_source_of = [](const nlohmann::json& entry) {
    const auto it = entry.is_object() ? entry.find("prior_source") : entry.end();
    return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  j["version"] = version;
  auto& params = j["parameters"];
  if (params.is_object()) {
    for (auto it = params.begin(); it != params.end(); ++it)
      if (!it.value().is_object())
        return InvalidArgument(base_path + ": parameters." + it.key() + " must be a JSON object with a value, got " +
                               it.value().dump().substr(0, 60));
  }
  // An earlier fit of a parameter this one no longer fits is withdrawn: the
  // parameter inherits again, or (without a parent) goes back to its prior.
  for (const auto& info : StackParamInfo()) {
    const std::string name = info.name;
    const auto origin = stack.origins.find(name);
    if (origin == stack.origins.end() || !origin->second.fitted()) continue;
    if (std::find(result.free.begin(), result.free.end(), name) != result.free.end()) continue;
    if (!stack.parent.empty()) {
      params.erase(name);
      continue;
    }
    auto& entry = params[name];
    entry["value"] = GetParam(stack.priors, name);
    const std::string had = prior_source_of(entry);
    entry["source"] = !had.empty() ? had : std::string("assumption: prior before calibration");
    entry.erase("prior");
    entry.erase("prior_source");
  }
  for (const auto& name : result.free) {
    auto& entry = params[name];
    const auto origin = stack.origins.find(name);
    std::string prior_source;
    if (!stack.parent.empty()) {
      prior_source = "the value of " + stack.parent + ", the previous version";
    } else if (!prior_source_of(entry).empty()) {
      prior_source = prior_source_of(entry);
    } else if (origin != stack.origins.end() && !origin->second.fitted()) {
      prior_source = origin->second.source;
    }
    entry["value"] = GetParam(result.params, name);
    entry["source"] = "fitted: frontier calibrate " + date + " (robust least squares on log error) to " +
                      std::to_string(result.points.size()) + " points: " + fitted_to;
    entry["prior"] = GetParam(stack.priors, name);
    if (!prior_source.empty()) entry["prior_source"] = prior_source;
  }
  nlohmann::json c;
  c["date"] = date;
  c["note"] = note;
  c["method"] = "robust least squares (soft-L1, scale 5 % on log error) with a ridge toward the priors (the "
                "previous version's values); Levenberg-Marquardt; leave-one-out refits from the priors"
                + std::string(std::any_of(result.points.begin(), result.points.end(),
                                          [](const CalibratedPoint& p) { return p.cross_gpu_predicted > 0; })
                                  ? "; cross-GPU refits without each GPU's points"
                                  : "");
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& name : result.free) candidates.push_back(name);
  nlohmann::json unidentified = nlohmann::json::array();
  for (const auto& [name, why] : result.not_identified) {
    candidates.push_back(name);
    unidentified.push_back({{"parameter", name}, {"why", why}});
  }
  c["free"] = candidates;
  c["fitted"] = result.free;
  if (!unidentified.empty()) c["not_identified"] = unidentified;
  // The model classes the fit saw: a default stack is chosen by them (stack.h, DefaultStack).
  std::set<std::string> classes;
  for (const auto& p : result.points) classes.insert(p.model_class);
  c["classes"] = classes;
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
    if (p.cross_gpu_predicted > 0) {
      q["cross_gpu_predicted"] = std::round(p.cross_gpu_predicted * 100) / 100;
      q["cross_gpu_error"] = std::round(p.cross_gpu_error * 10000) / 10000;
    }
    c["points"].push_back(q);
  }
  j["calibration"] = c;
  return WriteFileAtomically(path, j.dump(2) + "\n");
}

}  // namespace frontier::sim
