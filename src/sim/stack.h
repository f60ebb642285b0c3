// stack.h: versioned serving stacks (data/stacks/<name>@<version>.json).
//
// A stack is a serving engine on one vendor's software (TensorRT-LLM on CUDA,
// vLLM on ROCm, SGLang on either) at one version with its release date. Its
// parameters (efficiency.h) turn the hardware's peaks into what its kernels
// achieve, and its fixed costs into time per kernel, per step and per
// collective. Each parameter carries its source in the file: a reference, an
// assumption, or "fitted: ..." naming the published results `frontier
// calibrate` fitted it to.
//
//   Result<Stack> s = LoadStack("sglang-rocm@0.4.2");   // one version
//   Result<Stack> n = LoadStack("vllm-rocm");           // its newest version
//   Result<Stack> d = DefaultStack("amd");              // the vendor's default engine, newest version
//
// Thread safety: values; loading reads files.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/data_dir.h"
#include "sim/efficiency.h"

namespace frontier::sim {

struct Stack {
  std::string name;                  // "vllm-rocm", "trtllm", ...
  std::string version;               // "0.4.3"
  std::string release_date;          // "2024-06-12" (ISO date; orders versions)
  std::string engine, platform;      // "vllm", "rocm"
  std::string vendor;                // "nvidia" or "amd"
  std::string display_name;
  std::string attention_backend;     // as documented by the engine at that version
  bool default_for_vendor = false;   // the vendor's default engine (its newest version is used)
  bool graphs = true;                // decode-only steps replayed from CUDA/HIP graphs
  bool overlap_scheduler = false;    // scheduler CPU time overlaps the GPU step
  StackParams params;
  std::map<std::string, std::string> sources;  // parameter name -> its source
  // Values before any fit (a fitted parameter keeps its prior in the file's
  // "prior" field): calibration regularises toward these, never toward an
  // earlier fit, so a leave-one-out refit learns nothing from the point left out.
  StackParams priors;
  std::vector<std::string> free_params;  // what `frontier calibrate` fits by default
  double gpu_memory_utilization = 0.9;  // fraction of HBM the engine may use
  double runtime_reserve_gb = 2;     // HBM kept by the runtime (context, graphs, workspaces)
  int max_num_seqs = 256;            // default running-sequence cap (per DP rank)
  int max_num_batched_tokens = 8192; // default token budget per step (per DP rank)
  // Calibration record: what the fitted parameters were fitted to, and when.
  std::vector<std::string> fitted_to;   // published-result ids or measured-run ids
  std::string calibrated_on;            // date of the fit ("" = never calibrated)
  std::string calibration_note;         // one line for --list
  std::string file;

  std::string id() const { return name + "@" + version; }
};

// Loads "name" (its newest version by release date) or "name@version"
// (case-insensitive); a version that is a prefix of others ("0.4" of 0.4.2,
// 0.4.3) names the newest of that series. Unknown names or versions fail with NotFound listing the
// known ones.
Result<Stack> LoadStack(std::string_view spec, const std::string& data_dir = DefaultDataDir());
// The newest version of the stack marked default_for_vendor for "nvidia" / "amd".
Result<Stack> DefaultStack(std::string_view vendor, const std::string& data_dir = DefaultDataDir());
// Parses one stack file. Every parameter of StackParamInfo() must be present
// as {"value": v, "source": "..."} within its range; errors name the file,
// the parameter and the range.
Result<Stack> LoadStackFile(const std::string& path);
// Every stack version, ordered by name, then release date.
std::vector<Stack> ListStackVersions(const std::string& data_dir = DefaultDataDir());
// "name@version" of every stack version, in the same order.
std::vector<std::string> ListStacks(const std::string& data_dir = DefaultDataDir());

}  // namespace frontier::sim
