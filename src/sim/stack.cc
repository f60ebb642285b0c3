#include "sim/stack.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "sim/internal/json_util.h"

namespace frontier::sim {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Before(const Stack& a, const Stack& b) {
  if (a.name != b.name) return a.name < b.name;
  if (a.release_date != b.release_date) return a.release_date < b.release_date;
  return a.version < b.version;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

Result<Stack> LoadStackFile(const std::string& path) {
  using namespace internal;
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  Stack s;
  s.file = path;
  FRONTIER_ASSIGN_OR_RETURN(s.name, String(j, "name", path));
  s.name = Lower(s.name);
  FRONTIER_ASSIGN_OR_RETURN(s.version, String(j, "version", path));
  FRONTIER_ASSIGN_OR_RETURN(s.release_date, String(j, "release_date", path));
  FRONTIER_ASSIGN_OR_RETURN(s.vendor, String(j, "vendor", path));
  if (s.vendor != "nvidia" && s.vendor != "amd")
    return InvalidArgument(path + ": field 'vendor' must be \"nvidia\" or \"amd\", got \"" + s.vendor + "\"");
  if (s.release_date.size() != 10 || s.release_date[4] != '-' || s.release_date[7] != '-')
    return InvalidArgument(path + ": field 'release_date' must be an ISO date (YYYY-MM-DD), got \"" +
                           s.release_date + "\"");
  s.engine = StringOr(j, "engine", s.name);
  s.platform = StringOr(j, "platform", s.vendor == "amd" ? "rocm" : "cuda");
  s.display_name = StringOr(j, "display_name", s.name + " " + s.version);
  s.attention_backend = StringOr(j, "attention_backend", "");
  for (auto [key, out] : {std::pair{"default_for_vendor", &s.default_for_vendor}, std::pair{"graphs", &s.graphs},
                          std::pair{"overlap_scheduler", &s.overlap_scheduler}}) {
    if (j.contains(key) && !j[key].is_boolean())
      return InvalidArgument(path + ": field '" + key + "' must be true or false");
    if (j.contains(key)) *out = j[key].get<bool>();
  }
  // A reserve up to 1 TB, engine caps up to a million sequences and a billion tokens (docs/limits.md).
  FRONTIER_ASSIGN_OR_RETURN(s.gpu_memory_utilization, NumberIn(j, "gpu_memory_utilization", 0, 1, path));
  FRONTIER_ASSIGN_OR_RETURN(s.runtime_reserve_gb, NumberIn(j, "runtime_reserve_gb", 0, 1e3, path));
  FRONTIER_ASSIGN_OR_RETURN(double seqs, NumberIn(j, "max_num_seqs", 1, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(double toks, NumberIn(j, "max_num_batched_tokens", 1, 1e9, path));
  if (!(s.gpu_memory_utilization > 0))
    return InvalidArgument(path + ": gpu_memory_utilization must be in (0, 1], got 0");
  s.max_num_seqs = static_cast<int>(seqs);
  s.max_num_batched_tokens = static_cast<int>(toks);

  if (!j.contains("parameters") || !j["parameters"].is_object())
    return InvalidArgument(path + ": missing object 'parameters' (one entry per parameter, see docs/simulate.md)");
  const auto& params = j["parameters"];
  for (auto it = params.begin(); it != params.end(); ++it)
    if (FindParam(it.key()) == nullptr)
      return InvalidArgument(path + ": unknown parameter '" + it.key() + "'");
  for (const auto& info : StackParamInfo()) {
    const std::string key = info.name;
    if (!params.contains(key) || !params[key].is_object())
      return InvalidArgument(path + ": parameter '" + key + "' is missing; give it as {\"value\": v, \"source\": "
                             "\"where v comes from\"} (" + info.doc + ", " + info.unit + ")");
    FRONTIER_ASSIGN_OR_RETURN(double v, Number(params, key, path + ": parameters"));
    const std::string source = StringOr(params[key], "source", "");
    if (source.empty())
      return InvalidArgument(path + ": parameter '" + key + "' has no source; every parameter says where it comes "
                             "from (a reference, an assumption, or \"fitted: ...\")");
    if (!(v >= info.lo && v <= info.hi))
      return InvalidArgument(path + ": parameter '" + key + "' = " + Num(v) + " is outside [" + Num(info.lo) + ", " +
                             Num(info.hi) + "] (" + info.unit + ")");
    *info.get(s.params) = v;
    s.sources[key] = source;
    FRONTIER_ASSIGN_OR_RETURN(double prior, NumberOr(params[key], "prior", v, path + ": parameters." + key));
    if (!(prior >= info.lo && prior <= info.hi))
      return InvalidArgument(path + ": parameter '" + key + "' has a prior outside its range");
    *info.get(s.priors) = prior;
  }

  if (j.contains("calibration") && j["calibration"].is_object()) {
    const auto& c = j["calibration"];
    s.calibrated_on = StringOr(c, "date", "");
    s.calibration_note = StringOr(c, "note", "");
    if (c.contains("free") && c["free"].is_array()) {
      for (const auto& name : c["free"]) {
        if (!name.is_string() || FindParam(name.get<std::string>()) == nullptr)
          return InvalidArgument(path + ": calibration.free names an unknown parameter " + name.dump());
        s.free_params.push_back(name.get<std::string>());
      }
    }
    if (c.contains("fitted_to") && c["fitted_to"].is_array())
      for (const auto& id : c["fitted_to"])
        if (id.is_string()) s.fitted_to.push_back(id.get<std::string>());
  }
  return s;
}

std::vector<Stack> ListStackVersions(const std::string& data_dir) {
  std::vector<Stack> out;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    auto s = LoadStackFile(f);
    if (s.ok()) out.push_back(std::move(*s));
  }
  std::sort(out.begin(), out.end(), Before);
  return out;
}

std::vector<std::string> ListStacks(const std::string& data_dir) {
  std::vector<std::string> ids;
  for (const auto& s : ListStackVersions(data_dir)) ids.push_back(s.id());
  return ids;
}

Result<Stack> LoadStack(std::string_view spec_in, const std::string& data_dir) {
  const std::string spec = Lower(spec_in);
  const size_t at = spec.find('@');
  const std::string name = spec.substr(0, at);
  const std::string version = at == std::string::npos ? "" : spec.substr(at + 1);
  // Load every file so that a broken one is reported rather than skipped.
  std::vector<Stack> all;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    FRONTIER_ASSIGN_OR_RETURN(Stack s, LoadStackFile(f));
    all.push_back(std::move(s));
  }
  std::sort(all.begin(), all.end(), Before);
  std::vector<std::string> names, versions;
  const Stack* newest = nullptr;
  const Stack* newest_in_series = nullptr;  // "0.4" names the newest 0.4.x
  for (const auto& s : all) {
    if (names.empty() || names.back() != s.name) names.push_back(s.name);
    if (s.name != name) continue;
    versions.push_back(s.version);
    if (!version.empty() && Lower(s.version) == version) return s;
    if (!version.empty() && Lower(s.version).rfind(version + ".", 0) == 0) newest_in_series = &s;
    newest = &s;
  }
  if (newest_in_series != nullptr) return *newest_in_series;
  if (newest == nullptr)
    return NotFound("--stack: unknown stack '" + name + "'; known: " +
                    (names.empty() ? "(none under " + data_dir + "/stacks)" : Join(names)));
  if (!version.empty())
    return NotFound("--stack: " + name + " has no version '" + version + "'; known: " + Join(versions) +
                    " (frontier simulate --list shows what each was calibrated on)");
  return *newest;
}

Result<Stack> DefaultStack(std::string_view vendor, const std::string& data_dir) {
  std::vector<Stack> all;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    FRONTIER_ASSIGN_OR_RETURN(Stack s, LoadStackFile(f));
    if (s.vendor == vendor && s.default_for_vendor) all.push_back(std::move(s));
  }
  if (all.empty())
    return NotFound("no default stack for vendor '" + std::string(vendor) + "' under " + data_dir +
                    "/stacks; pass --stack");
  std::sort(all.begin(), all.end(), [](const Stack& a, const Stack& b) {
    return a.release_date != b.release_date ? a.release_date < b.release_date : a.version < b.version;
  });
  return all.back();
}

}  // namespace frontier::sim
