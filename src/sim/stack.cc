#include "sim/stack.h"

#include <algorithm>

#include "sim/internal/json_util.h"

namespace frontier::sim {

Result<Stack> LoadStackFile(const std::string& path) {
  using namespace internal;
  FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  Stack s;
  s.file = path;
  FRONTIER_ASSIGN_OR_RETURN(s.name, String(j, "name", path));
  FRONTIER_ASSIGN_OR_RETURN(s.vendor, String(j, "vendor", path));
  s.display_name = StringOr(j, "display_name", s.name);
  s.calibration = StringOr(j, "calibration", "");
  if (j.is_object() && j.contains("default_for_vendor") && j["default_for_vendor"].is_boolean())
    s.default_for_vendor = j["default_for_vendor"].get<bool>();
  if (j.is_object() && j.contains("graphs") && j["graphs"].is_boolean()) s.graphs = j["graphs"].get<bool>();
  struct Field {
    const char* key;
    double* out;
    double max;
  };
  // Fractions in [0, 1] (0 is refused below), overheads up to a second, a
  // reserve up to 1 TB (docs/limits.md).
  const Field fields[] = {
      {"gemm_flops_fraction", &s.gemm_flops_fraction, 1},
      {"attention_flops_fraction", &s.attention_flops_fraction, 1},
      {"hbm_fraction", &s.hbm_fraction, 1},
      {"link_fraction", &s.link_fraction, 1},
      {"step_overhead_us", &s.step_overhead_us, 1e6},
      {"layer_overhead_us", &s.layer_overhead_us, 1e6},
      {"graph_layer_overhead_us", &s.graph_layer_overhead_us, 1e6},
      {"allreduce_latency_us", &s.allreduce_latency_us, 1e6},
      {"alltoall_latency_us", &s.alltoall_latency_us, 1e6},
      {"gpu_memory_utilization", &s.gpu_memory_utilization, 1},
      {"runtime_reserve_gb", &s.runtime_reserve_gb, 1e3},
  };
  for (const auto& f : fields) {
    FRONTIER_ASSIGN_OR_RETURN(*f.out, NumberOrIn(j, f.key, *f.out, 0, f.max, path));
  }
  FRONTIER_ASSIGN_OR_RETURN(double seqs, NumberOrIn(j, "max_num_seqs", s.max_num_seqs, 1, 1e6, path));
  FRONTIER_ASSIGN_OR_RETURN(double toks,
                            NumberOrIn(j, "max_num_batched_tokens", s.max_num_batched_tokens, 1, 1e9, path));
  s.max_num_seqs = static_cast<int>(seqs);
  s.max_num_batched_tokens = static_cast<int>(toks);
  for (double frac : {s.gemm_flops_fraction, s.attention_flops_fraction, s.hbm_fraction,
                      s.link_fraction, s.gpu_memory_utilization}) {
    if (!(frac > 0 && frac <= 1))
      return InvalidArgument(path + ": efficiency fractions must be in (0, 1]");
  }
  return s;
}

std::vector<std::string> ListStacks(const std::string& data_dir) {
  std::vector<std::string> names;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    auto s = LoadStackFile(f);
    if (s.ok()) names.push_back(s->name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Stack> LoadStack(std::string_view name, const std::string& data_dir) {
  std::string known;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    FRONTIER_ASSIGN_OR_RETURN(Stack s, LoadStackFile(f));
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  return NotFound("--stack: unknown stack '" + std::string(name) + "'; known: " +
                  (known.empty() ? "(none under " + data_dir + "/stacks)" : known));
}

Result<Stack> DefaultStack(std::string_view vendor, const std::string& data_dir) {
  for (const auto& f : internal::JsonFilesIn(data_dir + "/stacks")) {
    FRONTIER_ASSIGN_OR_RETURN(Stack s, LoadStackFile(f));
    if (s.vendor == vendor && s.default_for_vendor) return s;
  }
  return NotFound("no default stack for vendor '" + std::string(vendor) + "' under " + data_dir +
                  "/stacks; pass --stack");
}

}  // namespace frontier::sim
