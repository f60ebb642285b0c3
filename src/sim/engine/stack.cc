#include "sim/engine/stack.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "core/ascii.h"
#include "core/name_table.h"
#include "core/parse.h"
#include "sim/engine/catalog_json.h"

namespace frontier::sim {
namespace {

bool Before(const Stack& a, const Stack& b) {
  if (a.name != b.name) return a.name < b.name;
  if (a.release_date != b.release_date) return a.release_date < b.release_date;
  return a.version < b.version;
}

// One file as written: its own fields and parameters, before inheritance.
struct Parsed {
  Stack stack;
  std::string inherits;  // the file's "inherits" ("" = the previous version of the same stack)
  bool no_parent = false;  // "inherits": null: none, even if an earlier version exists
  struct Own {
    double value = 0, prior = 0;
    bool has_prior = false;
    ParamOrigin origin;
  };
  std::map<std::string, Own> own;
};

// The file's 'parameters' into `out.own`: each checked against its range,
// with its source and, where given, its prior.
Status ParseParameters(const nlohmann::json& j, const std::string& path, Parsed& out) {
  using namespace catalog;
  if (!j.contains("parameters") || !j["parameters"].is_object())
    return InvalidArgument(path + ": missing object 'parameters' (one entry per parameter, see docs/simulate.md)");
  const auto& params = j["parameters"];
  for (auto it = params.begin(); it != params.end(); ++it) {
    const ParamInfo* info = FindParam(it.key());
    if (info == nullptr) return InvalidArgument(path + ": unknown parameter '" + it.key() + "'");
    const std::string key = info->name;
    if (!it->is_object())
      return InvalidArgument(path + ": parameter '" + key + "' must be {\"value\": v, \"source\": \"where v comes "
                             "from\"} (" + info->doc + ", " + info->unit + ")");
    FRONTIER_ASSIGN_OR_RETURN(double v, Number(params, key, path + ": parameters"));
    const std::string source = StringOr(*it, "source", "");
    if (source.empty())
      return InvalidArgument(path + ": parameter '" + key + "' has no source; every parameter says where it comes "
                             "from (a reference, an assumption, or \"fitted: ...\")");
    if (!(v >= info->lo && v <= info->hi))
      return InvalidArgument(path + ": parameter '" + key + "' = " + FormatSignificant(v) + " is outside [" +
                             FormatSignificant(info->lo) + ", " + FormatSignificant(info->hi) + "] (" + info->unit +
                             ")");
    Parsed::Own own;
    own.value = v;
    own.origin.source = source;
    own.origin.kind = source.rfind("fitted", 0) == 0 ? ParamOrigin::Kind::kFitted : ParamOrigin::Kind::kGiven;
    if (it->contains("prior")) {
      FRONTIER_ASSIGN_OR_RETURN(own.prior, Number(*it, "prior", path + ": parameters." + key));
      if (!(own.prior >= info->lo && own.prior <= info->hi))
        return InvalidArgument(path + ": parameter '" + key + "' has a prior outside its range");
      own.has_prior = true;
    }
    out.own[key] = own;
  }
  return Status::Ok();
}

// The file's record of its last calibration, where it has one.
Status ParseCalibration(const nlohmann::json& j, const std::string& path, Stack& s) {
  using namespace catalog;
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
    if (c.contains("classes") && c["classes"].is_array())
      for (const auto& cls : c["classes"])
        if (cls.is_string()) s.fitted_classes.push_back(cls.get<std::string>());
    if (c.contains("fitted_to") && c["fitted_to"].is_array())
      for (const auto& id : c["fitted_to"])
        if (id.is_string()) s.fitted_to.push_back(id.get<std::string>());
  }
  return Status::Ok();
}

Result<Parsed> ParseFile(const std::string& path) {
  using namespace catalog;
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  Parsed out;
  Stack& s = out.stack;
  s.file = path;
  FRONTIER_ASSIGN_OR_RETURN(s.name, String(j, "name", path));
  s.name = AsciiLower(s.name);
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
  if (j.contains("inherits")) {
    if (j["inherits"].is_null()) {
      out.no_parent = true;
    } else {
      FRONTIER_ASSIGN_OR_RETURN(out.inherits, String(j, "inherits", path));
      out.inherits = AsciiLower(out.inherits);
    }
  }
  FRONTIER_ASSIGN_OR_RETURN(s.default_for_vendor, BoolOr(j, "default_for_vendor", false, path));
  FRONTIER_ASSIGN_OR_RETURN(s.graphs, BoolOr(j, "graphs", true, path));
  FRONTIER_ASSIGN_OR_RETURN(s.overlap_scheduler, BoolOr(j, "overlap_scheduler", false, path));
  for (auto [key, field] : {std::pair{"prefill", &s.prefill}, std::pair{"mla_prefill", static_cast<PrefillMode*>(nullptr)}}) {
    const std::string text = StringOr(j, key, "");
    if (text.empty()) {
      if (j.contains(key) && !j[key].is_null())
        return InvalidArgument(path + ": field '" + key + "' must be a string (chunked-mixed, whole-mixed, "
                               "chunked-separate or whole-separate)");
      continue;
    }
    PrefillMode mode;
    if (!ParsePrefillMode(text, &mode))
      return InvalidArgument(path + ": field '" + key + "' must be chunked-mixed, whole-mixed, chunked-separate or "
                             "whole-separate, got \"" + text + "\"");
    if (field != nullptr) {
      *field = mode;
    } else {
      s.mla_prefill = mode;
    }
  }
  // Engine caps up to a million sequences and a billion tokens (docs/limits.md).
  FRONTIER_ASSIGN_OR_RETURN(s.gpu_memory_utilization, NumberIn(j, "gpu_memory_utilization", 0, 1, path));
  {
    const nlohmann::json* v = catalog::Value(j, "memory_fraction_of");
    if (v != nullptr && !v->is_string())
      return InvalidArgument(path + ": field 'memory_fraction_of' must be a string: \"device\", \"static\" or "
                             "\"free\"");
    const std::string of = StringOr(j, "memory_fraction_of", "device");
    if (of == "device") {
      s.memory_fraction_of = Stack::MemoryFractionOf::kDevice;
    } else if (of == "static") {
      s.memory_fraction_of = Stack::MemoryFractionOf::kStatic;
    } else if (of == "free") {
      s.memory_fraction_of = Stack::MemoryFractionOf::kFree;
    } else {
      return InvalidArgument(path + ": field 'memory_fraction_of' must be \"device\" (vLLM's "
                             "--gpu-memory-utilization), \"static\" (SGLang's --mem-fraction-static) or \"free\" "
                             "(TensorRT-LLM's free_gpu_memory_fraction), got \"" + of + "\"");
    }
  }
  if (j.contains("runtime_reserve_gb"))
    return InvalidArgument(path + ": field 'runtime_reserve_gb' is now the parameter 'memory.runtime_reserve_gb': "
                           "move it under 'parameters' as {\"value\": v, \"source\": \"...\"}");
  FRONTIER_ASSIGN_OR_RETURN(double align, NumberOrIn(j, "mla_kv_align_bytes", 0, 0, 4096, path));
  if (align != std::floor(align))
    return InvalidArgument(path + ": field 'mla_kv_align_bytes' must be a whole number of bytes, got " +
                           FormatSignificant(align));
  s.mla_kv_align_bytes = static_cast<int>(align);
  FRONTIER_ASSIGN_OR_RETURN(s.mla_absorbed_weights, BoolOr(j, "mla_absorbed_weights", false, path));
  FRONTIER_ASSIGN_OR_RETURN(s.allreduce_out_of_place, BoolOr(j, "allreduce_out_of_place", false, path));
  FRONTIER_ASSIGN_OR_RETURN(s.mla_output_buffer, BoolOr(j, "mla_output_buffer", false, path));
  FRONTIER_ASSIGN_OR_RETURN(s.reserve_to_completion, BoolOr(j, "reserve_to_completion", false, path));
  FRONTIER_ASSIGN_OR_RETURN(double seqs, NumberIn(j, "max_num_seqs", 1, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(double toks, NumberIn(j, "max_num_batched_tokens", 1, 1e9, path));
  if (!(s.gpu_memory_utilization > 0))
    return InvalidArgument(path + ": gpu_memory_utilization must be in (0, 1], got 0");
  s.max_num_seqs = static_cast<int>(seqs);
  s.max_num_batched_tokens = static_cast<int>(toks);

  FRONTIER_RETURN_IF_ERROR(ParseParameters(j, path, out));
  FRONTIER_RETURN_IF_ERROR(ParseCalibration(j, path, s));
  return out;
}

// Resolves `i` (and, first, its ancestors) into `done`.
Status Resolve(size_t i, std::vector<Parsed>& parsed, std::vector<int>& state, std::vector<Stack>& done) {
  if (state[i] == 2) return Status::Ok();
  Parsed& p = parsed[i];
  if (state[i] == 1) return InvalidArgument(p.stack.file + ": 'inherits' forms a cycle through " + p.stack.id());
  state[i] = 1;
  // The parent: named, else the newest earlier release of the same stack.
  int parent = -1;
  if (!p.inherits.empty()) {
    for (size_t k = 0; k < parsed.size(); ++k)
      if (parsed[k].stack.id() == p.inherits) parent = static_cast<int>(k);
    if (parent < 0)
      return NotFound(p.stack.file + ": 'inherits' names " + p.inherits + ", which is no catalogued stack version");
    if (parsed[parent].stack.vendor != p.stack.vendor)
      return InvalidArgument(p.stack.file + ": 'inherits' names " + p.inherits + " of the other vendor");
  } else if (!p.no_parent) {
    for (size_t k = 0; k < parsed.size(); ++k) {
      const Stack& q = parsed[k].stack;
      if (q.name != p.stack.name || q.release_date >= p.stack.release_date) continue;
      if (parent < 0 || Before(parsed[parent].stack, q)) parent = static_cast<int>(k);
    }
  }
  const Stack* up = nullptr;
  if (parent >= 0) {
    FRONTIER_RETURN_IF_ERROR(Resolve(static_cast<size_t>(parent), parsed, state, done));
    up = &done[static_cast<size_t>(parent)];
  }
  Stack& s = done[i];
  s = p.stack;
  if (up != nullptr) s.parent = up->id();
  for (const auto& info : StackParamInfo()) {
    const std::string key = info.name;
    auto own = p.own.find(key);
    if (own != p.own.end()) {
      *info.get(s.params) = own->second.value;
      s.origins[key] = own->second.origin;
      double prior = own->second.value;
      if (own->second.origin.fitted()) {
        if (up != nullptr) {
          prior = GetParam(up->params, key);
        } else if (own->second.has_prior) {
          prior = own->second.prior;
        }
      }
      *info.get(s.priors) = prior;
      continue;
    }
    if (up == nullptr)
      return InvalidArgument(s.file + ": parameter '" + key + "' is missing; give it as {\"value\": v, \"source\": "
                             "\"where v comes from\"} (" + info.doc + ", " + info.unit + "), or inherit it from an "
                             "earlier version ('inherits')");
    const ParamOrigin& theirs = up->origins.at(key);
    ParamOrigin o;
    o.kind = ParamOrigin::Kind::kInherited;
    o.source = theirs.source;
    o.from = theirs.kind == ParamOrigin::Kind::kInherited ? theirs.from : up->id();
    o.fitted_there = theirs.kind == ParamOrigin::Kind::kInherited ? theirs.fitted_there : theirs.fitted();
    s.origins[key] = o;
    const double v = GetParam(up->params, key);
    *info.get(s.params) = v;
    *info.get(s.priors) = v;
  }
  state[i] = 2;
  return Status::Ok();
}

}  // namespace

const char* PrefillModeName(PrefillMode m) {
  switch (m) {
    case PrefillMode::kChunkedMixed: return "chunked-mixed";
    case PrefillMode::kWholeMixed: return "whole-mixed";
    case PrefillMode::kChunkedSeparate: return "chunked-separate";
    case PrefillMode::kWholeSeparate: return "whole-separate";
  }
  return "?";
}

bool ParsePrefillMode(const std::string& text, PrefillMode* out) {
  for (PrefillMode m : {PrefillMode::kChunkedMixed, PrefillMode::kWholeMixed, PrefillMode::kChunkedSeparate,
                        PrefillMode::kWholeSeparate}) {
    if (text == PrefillModeName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

std::string ParamOrigin::Describe() const {
  switch (kind) {
    case Kind::kGiven: return "given";
    case Kind::kFitted: return "fitted";
    case Kind::kInherited: return "inherited from " + from + (fitted_there ? " (fitted there)" : "");
  }
  return "?";
}

Result<std::vector<Stack>> LoadStackCatalog(const std::string& data_dir) {
  std::vector<Parsed> parsed;
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/stacks")) {
    FRONTIER_ASSIGN_OR_RETURN(Parsed p, ParseFile(f));
    for (const auto& q : parsed)
      if (q.stack.id() == p.stack.id())
        return InvalidArgument(f + ": " + p.stack.id() + " is also defined by " + q.stack.file);
    parsed.push_back(std::move(p));
  }
  std::sort(parsed.begin(), parsed.end(), [](const Parsed& a, const Parsed& b) { return Before(a.stack, b.stack); });
  std::vector<int> state(parsed.size(), 0);
  std::vector<Stack> done(parsed.size());
  for (size_t i = 0; i < parsed.size(); ++i) FRONTIER_RETURN_IF_ERROR(Resolve(i, parsed, state, done));
  return done;
}

Result<Stack> LoadStackFile(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().parent_path().string();
  FRONTIER_ASSIGN_OR_RETURN(std::vector<Stack> all, LoadStackCatalog(dir.empty() ? "." : dir));
  for (auto& s : all)
    if (std::filesystem::path(s.file) == p) return std::move(s);
  return NotFound("cannot open " + path);
}

std::vector<Stack> ListStackVersions(const std::string& data_dir) {
  // Parse each file alone so that one broken file hides only itself (and the
  // versions that inherit from it).
  std::vector<Parsed> parsed;
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/stacks")) {
    Result<Parsed> p = ParseFile(f);
    if (p.ok()) parsed.push_back(std::move(*p));
  }
  std::sort(parsed.begin(), parsed.end(), [](const Parsed& a, const Parsed& b) { return Before(a.stack, b.stack); });
  std::vector<int> state(parsed.size(), 0);
  std::vector<Stack> done(parsed.size());
  std::vector<Stack> out;
  for (size_t i = 0; i < parsed.size(); ++i)
    if (Resolve(i, parsed, state, done).ok()) out.push_back(done[i]);
  return out;
}

std::vector<std::string> ListStacks(const std::string& data_dir) {
  std::vector<std::string> ids;
  for (const auto& s : ListStackVersions(data_dir)) ids.push_back(s.id());
  return ids;
}

Result<Stack> LoadStack(std::string_view spec_in, const std::string& data_dir) {
  const std::string spec = AsciiLower(spec_in);
  const size_t at = spec.find('@');
  const std::string name = spec.substr(0, at);
  const std::string version = at == std::string::npos ? "" : spec.substr(at + 1);
  // Load every file so that a broken one is reported rather than skipped.
  FRONTIER_ASSIGN_OR_RETURN(std::vector<Stack> all, LoadStackCatalog(data_dir));
  std::vector<std::string> names, versions;
  const Stack* newest = nullptr;
  const Stack* newest_in_series = nullptr;  // "0.4" names the newest 0.4.x
  for (const auto& s : all) {
    if (names.empty() || names.back() != s.name) names.push_back(s.name);
    if (s.name != name) continue;
    versions.push_back(s.version);
    if (!version.empty() && AsciiLower(s.version) == version) return s;
    if (!version.empty() && AsciiLower(s.version).rfind(version + ".", 0) == 0) newest_in_series = &s;
    newest = &s;
  }
  if (newest_in_series != nullptr) return *newest_in_series;
  if (newest == nullptr)
    return NotFound("--stack: unknown stack '" + name + "'; known: " +
                    (names.empty() ? "(none under " + data_dir + "/stacks)" : JoinNames(names)));
  if (!version.empty())
    return NotFound("--stack: " + name + " has no version '" + version + "'; known: " + JoinNames(versions) +
                    " (frontier simulate --list shows what each was calibrated on)");
  return *newest;
}

Result<Stack> DefaultStack(std::string_view vendor, std::string_view model_class, const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<Stack> all, LoadStackCatalog(data_dir));
  // The release date of the newest version of s's lineage fitted to the class ("" = none).
  auto evidence = [&](const Stack& s) {
    for (const Stack* v = &s; v != nullptr;) {
      if (std::find(v->fitted_classes.begin(), v->fitted_classes.end(), model_class) != v->fitted_classes.end())
        return v->release_date;
      const Stack* up = nullptr;
      for (const auto& q : all)
        if (q.id() == v->parent) up = &q;
      v = up;
    }
    return std::string();
  };
  auto newer = [](const Stack& a, const Stack& b) {  // a released after b
    return a.release_date > b.release_date || (a.release_date == b.release_date && a.version > b.version);
  };
  const Stack* best = nullptr;
  std::string best_evidence;
  for (bool defaults_only : {true, false}) {
    for (const auto& s : all) {
      if (s.vendor != vendor || (defaults_only && !s.default_for_vendor)) continue;
      const std::string e = evidence(s);
      if (e.empty()) continue;
      if (best == nullptr || e > best_evidence || (e == best_evidence && newer(s, *best))) {
        best = &s;
        best_evidence = e;
      }
    }
    if (best != nullptr) return *best;
  }
  for (const auto& s : all) {
    if (s.vendor != vendor || !s.default_for_vendor) continue;
    if (best == nullptr || newer(s, *best)) best = &s;
  }
  if (best == nullptr)
    return NotFound("no default stack for vendor '" + std::string(vendor) + "' under " + data_dir +
                    "/stacks; pass --stack");
  return *best;
}

Result<Stack> BestStack(std::string_view vendor, std::string_view model_class, const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<Stack> all, LoadStackCatalog(data_dir));
  const Stack* best = nullptr;
  for (const auto& s : all) {
    if (s.vendor != vendor ||
        std::find(s.fitted_classes.begin(), s.fitted_classes.end(), model_class) == s.fitted_classes.end())
      continue;
    if (best == nullptr || s.release_date > best->release_date ||
        (s.release_date == best->release_date && s.version > best->version))
      best = &s;
  }
  if (best != nullptr) return *best;
  return DefaultStack(vendor, model_class, data_dir);
}

}  // namespace frontier::sim
