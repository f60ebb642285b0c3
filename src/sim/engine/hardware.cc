#include "sim/engine/hardware.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/ascii.h"
#include "core/name_table.h"
#include "sim/engine/catalog_json.h"

namespace frontier::sim {

double Hardware::PeakTflops(Precision p, Precision* effective) const {
  Precision e = p;
  if (e == Precision::kFp4 && fp4_tflops <= 0) e = Precision::kFp8;
  if (e == Precision::kFp8 && fp8_tflops <= 0) e = Precision::kBf16;
  if (effective != nullptr) *effective = e;
  switch (e) {
    case Precision::kFp4: return fp4_tflops;
    case Precision::kFp8: return fp8_tflops;
    case Precision::kBf16: return bf16_tflops;
  }
  return bf16_tflops;
}

double Hardware::CollectiveGBps(int group) const {
  if (group <= 1) return 0.0;
  if (topology == Topology::kSwitch) return link_gbps;
  // Full mesh: a group of n GPUs talks over the n-1 direct links to its peers.
  return link_gbps * std::min(group - 1, links);
}

Result<Hardware> LoadHardwareFile(const std::string& path) {
  using namespace catalog;
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  Hardware h;
  h.file = path;
  FRONTIER_ASSIGN_OR_RETURN(h.name, String(j, "name", path));
  h.name = AsciiLower(h.name);
  if (j.is_object() && j.contains("aliases") && j["aliases"].is_array())
    for (const auto& a : j["aliases"])
      if (a.is_string()) h.aliases.push_back(AsciiLower(a.get<std::string>()));
  h.display_name = StringOr(j, "display_name", h.name);
  h.vendor = AsciiLower(StringOr(j, "vendor", ""));
  if (h.vendor != "nvidia" && h.vendor != "amd")
    return InvalidArgument(path + ": field 'vendor' must be \"nvidia\" or \"amd\"");
  // Physical ranges (docs/limits.md): orders of magnitude above any accelerator.
  FRONTIER_ASSIGN_OR_RETURN(h.bf16_tflops, NumberIn(j, "bf16_dense_tflops", 1e-3, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(h.fp8_tflops, NumberOrIn(j, "fp8_dense_tflops", 0, 0, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(h.fp4_tflops, NumberOrIn(j, "fp4_dense_tflops", 0, 0, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(h.hbm_gb, NumberIn(j, "hbm_gb", 1e-3, 1e5, path));
  FRONTIER_ASSIGN_OR_RETURN(h.hbm_tbps, NumberIn(j, "hbm_tbps", 1e-3, 1e3, path));
  const std::string topo = StringOr(j, "scale_up_topology", "");
  if (topo == "switch") {
    h.topology = Topology::kSwitch;
  } else if (topo == "full_mesh") {
    h.topology = Topology::kFullMesh;
  } else {
    return InvalidArgument(path + ": field 'scale_up_topology' must be \"switch\" or \"full_mesh\"");
  }
  FRONTIER_ASSIGN_OR_RETURN(h.link_gbps, NumberIn(j, "link_gbps_per_direction", 1e-3, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(double links, NumberOrIn(j, "links_per_gpu", 1, 1, 1024, path));
  h.links = static_cast<int>(links);
  FRONTIER_ASSIGN_OR_RETURN(double domain, NumberOrIn(j, "scale_up_gpus", 8, 1, 1e6, path));
  h.scale_up_gpus = static_cast<int>(domain);
  if (links != std::floor(links) || domain != std::floor(domain))
    return InvalidArgument(path + ": links_per_gpu and scale_up_gpus must be whole numbers");
  FRONTIER_ASSIGN_OR_RETURN(h.nic_gbps, NumberOrIn(j, "scale_out_gbps_per_gpu", 0, 0, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(h.tdp_w, NumberIn(j, "tdp_w", 1, 1e5, path));
  if (j.is_object() && j.contains("usd_per_gpu_hour")) {
    const auto& p = j["usd_per_gpu_hour"];
    FRONTIER_ASSIGN_OR_RETURN(h.price.hyperscaler, NumberOrIn(p, "hyperscaler", 0, 0, 1e4, path));
    FRONTIER_ASSIGN_OR_RETURN(h.price.neocloud, NumberOrIn(p, "neocloud", 0, 0, 1e4, path));
    FRONTIER_ASSIGN_OR_RETURN(h.price.three_year, NumberOrIn(p, "three_year", 0, 0, 1e4, path));
  }
  if (h.bf16_tflops <= 0 || h.hbm_gb <= 0 || h.hbm_tbps <= 0 || h.link_gbps <= 0 || h.links < 1)
    return InvalidArgument(path + ": TFLOPS, HBM size and bandwidth and link bandwidth must be positive");
  return h;
}

std::vector<std::string> ListHardware(const std::string& data_dir) {
  std::vector<std::string> names;
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/hardware")) {
    auto h = LoadHardwareFile(f);
    if (h.ok()) names.push_back(h->name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Hardware> LoadHardware(std::string_view name, const std::string& data_dir) {
  const std::string want = AsciiLower(name);
  std::vector<std::string> known;
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/hardware")) {
    FRONTIER_ASSIGN_OR_RETURN(Hardware h, LoadHardwareFile(f));
    if (h.name == want || std::find(h.aliases.begin(), h.aliases.end(), want) != h.aliases.end())
      return h;
    known.push_back(h.name);
  }
  std::sort(known.begin(), known.end());
  if (known.empty())
    return NotFound("--hardware: no hardware catalog under " + data_dir +
                    "/hardware (set FRONTIER_DATA_DIR to frontier's data/ folder)");
  return NotFound("--hardware: unknown hardware '" + std::string(name) + "'; known: " +
                  JoinNames(known));
}

}  // namespace frontier::sim
