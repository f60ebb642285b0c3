// gpu_override.h: efficiency parameters measured on one GPU, applied to every
// stack that runs on it (data/probes/<hardware>.json).
//
// A stack version's parameters (efficiency.h) are fitted to end-to-end
// results over many GPUs. A user who measured their own GPU's kernels with
// `frontier probe` and fitted them with `frontier calibrate --probe RUN` gets
// a file here that names the GPU, the probe run it came from and, for each
// parameter it sets (gemm.<precision>.max/.half, hbm, attention.decode_bw), a
// value with its source. ResolveSimConfig (config.h) applies it on top of the
// stack: the parameter's provenance then reads "given: measured by frontier
// probe ...", and the deployment's effective settings name the file.
//
//   {"hardware": "h200", "probe_run": "probe/h200#3", "device": "NVIDIA H200",
//    "measured_utc": "2026-12-04T12:00:00Z",
//    "params": {"gemm.bf16.max": {"value": 0.71, "source": "..."}, ...}}
//
// Thread safety: values; the functions read or write files.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/status.h"
#include "sim/engine/stack.h"

namespace frontier::sim {

struct GpuOverride {
  std::string hardware;      // catalog name the file applies to
  std::string probe_run;     // the stored probe run's label ("probe/h200#3")
  std::string device;        // the device name the probe read ("NVIDIA H200")
  std::string measured_utc;  // when the probe ran
  struct Value {
    double value = 0;
    std::string source;
  };
  std::map<std::string, Value> params;  // parameter name (efficiency.h) -> value
  std::string file;                     // where it was read from ("" until written or read)
};

// <data_dir>/probes/<hardware>.json.
std::string GpuOverridePath(const std::string& data_dir, const std::string& hardware);

// The override for `hardware` in `data_dir`, or nullopt when there is none.
// Errors name the file and the field: not JSON, another hardware name, an
// unknown parameter, or a value outside the parameter's range.
Result<std::optional<GpuOverride>> LoadGpuOverride(const std::string& data_dir, const std::string& hardware);

// Writes `o` to `path` atomically (creating its folder). InvalidArgument for
// an unknown parameter or a value out of range, naming it.
Status WriteGpuOverride(const GpuOverride& o, const std::string& path);

// Sets each of `o`'s parameters in `stack` (params, priors and origins).
void ApplyGpuOverride(const GpuOverride& o, Stack* stack);

}  // namespace frontier::sim
