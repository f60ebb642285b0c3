// gpu_override.cc: reading, writing and applying data/probes/<hardware>.json.
#include "sim/engine/gpu_override.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/parse.h"
#include "sim/engine/efficiency.h"
#include "sim/engine/catalog_json.h"

namespace frontier::sim {
namespace {

Status CheckParam(const std::string& origin, const std::string& name, double value) {
  const ParamInfo* info = FindParam(name);
  if (info == nullptr)
    return InvalidArgument(origin + ": params." + name + " is not a stack parameter (frontier simulate --explain lists them)");
  if (!(value >= info->lo && value <= info->hi))
    return InvalidArgument(origin + ": params." + name + " must be in [" + FormatSignificant(info->lo) + ", " +
                           FormatSignificant(info->hi) + "] " + info->unit + ", got " + FormatSignificant(value));
  return Status::Ok();
}

}  // namespace

std::string GpuOverridePath(const std::string& data_dir, const std::string& hardware) {
  return data_dir + "/probes/" + hardware + ".json";
}

Result<std::optional<GpuOverride>> LoadGpuOverride(const std::string& data_dir, const std::string& hardware) {
  const std::string path = GpuOverridePath(data_dir, hardware);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<GpuOverride>();
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, catalog::ReadJsonFile(path));
  if (!j.is_object()) return InvalidArgument(path + ": expected a JSON object");
  GpuOverride o;
  o.file = path;
  auto text = [&](const char* key) -> std::string {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
  };
  o.hardware = text("hardware");
  o.probe_run = text("probe_run");
  o.device = text("device");
  o.measured_utc = text("measured_utc");
  if (o.hardware != hardware)
    return InvalidArgument(path + ": hardware must be \"" + hardware + "\" (the file's name), got \"" + o.hardware +
                           "\"");
  const auto params = j.find("params");
  if (params == j.end() || !params->is_object() || params->empty())
    return InvalidArgument(path + ": params must be an object of {\"value\", \"source\"} per parameter");
  for (const auto& [name, v] : params->items()) {
    FRONTIER_ASSIGN_OR_RETURN(double value, catalog::Number(*params, name, path + ": params"));
    FRONTIER_RETURN_IF_ERROR(CheckParam(path, name, value));
    std::string source;
    if (v.is_object() && v.contains("source") && v["source"].is_string()) source = v["source"].get<std::string>();
    if (source.empty()) return InvalidArgument(path + ": params." + name + " needs its \"source\"");
    o.params[name] = {value, source};
  }
  return std::optional<GpuOverride>(std::move(o));
}

Status WriteGpuOverride(const GpuOverride& o, const std::string& path) {
  nlohmann::json j;
  j["hardware"] = o.hardware;
  j["probe_run"] = o.probe_run;
  j["device"] = o.device;
  j["measured_utc"] = o.measured_utc;
  j["params"] = nlohmann::json::object();
  for (const auto& [name, v] : o.params) {
    FRONTIER_RETURN_IF_ERROR(CheckParam(path, name, v.value));
    j["params"][name] = {{"value", v.value}, {"source", v.source}};
  }
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return WriteFileAtomically(path, j.dump(2) + "\n");
}

void ApplyGpuOverride(const GpuOverride& o, Stack* stack) {
  for (const auto& [name, v] : o.params) {
    SetParam(stack->params, name, v.value);
    SetParam(stack->priors, name, v.value);
    ParamOrigin origin;
    origin.kind = ParamOrigin::Kind::kGiven;
    origin.source = v.source + " (" + o.file + ")";
    stack->origins[name] = origin;
  }
}

}  // namespace frontier::sim
