// stack.h: serving-stack efficiency factors (data/stacks/*.json).
//
// A stack is a serving engine on one vendor's software (TensorRT-LLM on CUDA,
// vLLM on ROCm, ...). Its factors turn the hardware's peaks into what kernels
// achieve: fractions of peak GEMM FLOPs, HBM and link bandwidth, plus fixed
// costs per step, per layer and per collective. They are calibrated per
// stack against public results (data/validation/), never per data point; each
// file says which results set them.
//
// Thread safety: values; loading reads files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/data_dir.h"

namespace frontier::sim {

struct Stack {
  std::string name;                  // "trtllm", "vllm-rocm", ...
  std::string vendor;                // "nvidia" or "amd"
  std::string display_name;
  bool default_for_vendor = false;   // used when --stack is not given
  double gemm_flops_fraction = 0.7;  // achieved / peak dense FLOPs in linear layers
  double attention_flops_fraction = 0.5;  // achieved / peak in attention (prefill)
  double hbm_fraction = 0.8;         // achieved / peak HBM bandwidth
  double link_fraction = 0.7;        // achieved / peak scale-up bandwidth in collectives
  double step_overhead_us = 0;       // scheduling, sampling, input preparation per step
  double layer_overhead_us = 0;      // kernel launches and gaps per layer when not graph-captured
  double graph_layer_overhead_us = 0;  // the same under CUDA/HIP graphs
  bool graphs = true;                // decode-only steps replayed from CUDA/HIP graphs
  double allreduce_latency_us = 0;   // fixed cost of one all-reduce
  double alltoall_latency_us = 0;    // fixed cost of one all-to-all (MoE dispatch or combine)
  double gpu_memory_utilization = 0.9;  // fraction of HBM the engine may use
  double runtime_reserve_gb = 0;     // HBM kept by the runtime (context, graphs, workspaces)
  int max_num_seqs = 256;            // default running-sequence cap
  int max_num_batched_tokens = 8192; // default token budget per step
  std::string calibration;           // which published results set these factors
  std::string file;
};

// Loads by name (case-insensitive). Unknown names fail with NotFound listing
// the known ones.
Result<Stack> LoadStack(std::string_view name, const std::string& data_dir = DefaultDataDir());
// The stack marked default_for_vendor for "nvidia" / "amd".
Result<Stack> DefaultStack(std::string_view vendor, const std::string& data_dir = DefaultDataDir());
Result<Stack> LoadStackFile(const std::string& path);
std::vector<std::string> ListStacks(const std::string& data_dir = DefaultDataDir());

}  // namespace frontier::sim
