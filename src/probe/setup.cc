// setup.cc: `frontier probe`'s lists, the catalog GPU of a device and the probe its flags open.
#include "probe/setup.h"

#include <cstdlib>

#include "core/ascii.h"
#include "core/split.h"
#include "probe/open.h"

namespace frontier::probe {

Result<std::vector<int64_t>> ParseTokenCounts(const std::string& text, const std::string& flag) {
  std::vector<int64_t> out;
  for (const auto& t : SplitNonEmpty(text, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size())
      return InvalidArgument(flag + " takes comma-separated integers, got '" + t + "'");
    out.push_back(v);
  }
  return out;
}

Result<std::vector<GemmPrecision>> ParseGemmPrecisions(const std::string& text,
                                                       const std::string& flag) {
  std::vector<GemmPrecision> out;
  for (const auto& p : SplitNonEmpty(text, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(GemmPrecision gp, ParseGemmPrecision(p, flag));
    out.push_back(gp);
  }
  return out;
}

Result<std::vector<sim::ModelSpec>> LoadModels(const std::string& text, const std::string& dir) {
  std::vector<sim::ModelSpec> specs;
  for (const auto& m : SplitNonEmpty(text, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(sim::ModelSpec spec, sim::LoadModel(m, dir));
    specs.push_back(std::move(spec));
  }
  return specs;
}

bool IsFakeBackend(const std::string& name) {
  const char* env = std::getenv("FRONTIER_PROBE_BACKEND");
  return name == "fake" || (name == "auto" && env && std::string(env) == "fake");
}

Result<sim::Hardware> GuessHardware(const std::string& device, const std::string& dir) {
  const std::string d = AsciiLower(device);
  std::vector<sim::Hardware> hits;
  for (const auto& name : sim::ListHardware(dir)) {
    Result<sim::Hardware> hw = sim::LoadHardware(name, dir);
    if (!hw.ok()) continue;
    std::vector<std::string> names = hw->aliases;
    names.push_back(hw->name);
    for (const auto& n : names)
      if (d.find(AsciiLower(n)) != std::string::npos) {
        hits.push_back(*hw);
        break;
      }
  }
  if (hits.size() == 1) return hits.front();
  return InvalidArgument("--hardware is needed: the device '" + device + "' matches " +
                         std::to_string(hits.size()) +
                         " catalog entries (frontier simulate --list-hardware names them)");
}

Result<ProbeSetup> OpenProbe(const ProbeFlags& flags, const std::string& dir) {
  ProbeSetup p;
  p.options = flags.options;
  if (!flags.tokens.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.options.tokens, ParseTokenCounts(flags.tokens, "--tokens"));
  }
  FRONTIER_ASSIGN_OR_RETURN(p.options.precisions, ParseGemmPrecisions(flags.precisions, "--precision"));
  if (flags.stream_mib < 1) return InvalidArgument("--stream-mib must be at least 1");
  p.options.stream_bytes = flags.stream_mib << 20;
  FRONTIER_ASSIGN_OR_RETURN(p.models, LoadModels(flags.models, dir));
  // The fake needs the catalog's peaks before it exists; a GPU names itself.
  if (!flags.hardware.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.hardware, sim::LoadHardware(flags.hardware, dir));
  }
  if (IsFakeBackend(flags.backend) && flags.hardware.empty())
    return InvalidArgument("the fake backend needs --hardware: the catalog GPU whose peaks it stands in for");
  FRONTIER_ASSIGN_OR_RETURN(p.backend, OpenBackend(flags.backend, p.hardware));
  if (flags.hardware.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.hardware, GuessHardware(p.backend->Info().name, dir));
  }
  return p;
}

}  // namespace frontier::probe
