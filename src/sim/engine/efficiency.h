// efficiency.h: how close kernels come to the hardware's peaks, as small
// functions of the work's shape, with the parameters a stack version sets.
//
// Every efficiency is a fraction of a peak (FLOPs, HBM bandwidth or link
// bandwidth). Those that depend on the work's size follow one saturating
// curve,
//
//   efficiency(x) = max x / (x + half)
//
// which reaches max/2 at x = half and tends to max for large x: a GEMM with
// few rows, or a grouped GEMM with few tokens per expert, cannot fill the
// GPU's compute units, while a large one runs near the kernel's best. half = 0
// gives a constant (max at every size). Equivalently, a curve charges the
// work as if it had `half` more rows than it has: time = (x + half) / (max x)
// x the ideal time.
//
// Operator classes and their parameters (names as in data/stacks/*.json):
//   dense GEMM, by weight precision     gemm.<bf16|fp8|fp4>.max/.half  x = rows per GPU
//   grouped MoE GEMM                    grouped_gemm.max/.half         x = tokens per expert
//   GEMMs (dense or grouped) with
//     block-scaled FP8 (128x128)        scaling.block_fp8              multiplies the efficiency
//     MXFP4 / NVFP4 on FP4 units        scaling.fp4
//     FP4 weights without FP4 units     scaling.software_fp4           (dequantised in software; on
//                                                                       the next wider format's peak)
//   attention, prefill (GQA)            attention.prefill.max/.half    x = new tokens per sequence
//   attention, prefill (MLA, expanded)  attention.mla_prefill.max/.half
//   attention, decode (KV reads)        attention.decode_bw            fraction of HBM bandwidth
//   MLA decode (latent KV, absorbed)    attention.mla_decode_bw
//   weight / activation streaming       hbm
//   collectives                         collectives.* (see step_model.h)
//   fixed costs                         overhead.* (see step_model.h): a per-kernel floor for
//                                       every kernel, and extra time per kernel of an MLA
//                                       attention block and of an MoE block
//
// Each parameter has a scope (ParamScope): the deployments whose step time it
// sets apart from every other parameter. Calibration frees a parameter only
// when some point lies in its scope (calibration.h): a parameter that applies
// to every model (the per-kernel floor, the scheduler's time, weight
// streaming) is identified by dense models only, since on MoE or MLA models
// the MoE- and MLA-specific costs scale the same way and the fit could not
// tell them apart.
//
// Thread safety: values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace frontier::sim {

// max x / (x + half); max for half <= 0; 0 for x <= 0 when half > 0.
struct Curve {
  double max = 1.0;
  double half = 0.0;
  double At(double x) const {
    if (half <= 0) return max;
    return x > 0 ? max * x / (x + half) : 0.0;
  }
  bool operator==(const Curve&) const = default;
};

// The tunable parameters of one stack version. Defaults are neutral
// placeholders; every catalogued stack sets each one with its source.
struct StackParams {
  Curve gemm_bf16{0.8, 32};
  Curve gemm_fp8{0.8, 64};
  Curve gemm_fp4{0.7, 128};
  Curve grouped_gemm{0.7, 16};
  double block_fp8 = 1.0;       // block-scaled FP8 weights (DeepSeek's 128x128 scales)
  double fp4_scaled = 1.0;      // MXFP4 / NVFP4 weights on hardware with FP4 units
  double software_fp4 = 1.0;    // FP4 weights on hardware without FP4 units
  Curve attn_prefill{0.5, 128};
  Curve mla_prefill{0.3, 256};  // MLA prefill attention (expanded form), per backend
  double attn_decode_bw = 0.8;
  double mla_decode_bw = 0.6;
  double hbm = 0.92;
  double link = 0.8;            // scale-up (NVLink / Infinity Fabric) bandwidth in collectives
  double nic = 0.8;             // scale-out (RDMA NIC) bandwidth
  double allreduce_us = 10;     // latency of one all-reduce in the scale-up domain
  double alltoall_us = 20;      // latency of one EP dispatch or combine
  double nic_latency_us = 15;   // extra latency of a collective or transfer that leaves the node
  double kv_transfer_us = 100;  // fixed cost of one disaggregated KV hand-off
  double step_us = 300;         // scheduler CPU time per step (input prep, sampling, output)
  double per_seq_us = 0;        // ... and per scheduled sequence
  double kernel_us = 4;         // per-kernel GPU floor (ramp, tail, gaps), every step
  double mla_kernel_us = 0;     // extra GPU time per kernel of an MLA attention block
  double moe_kernel_us = 0;     // extra GPU time per kernel of an MoE block (router, dispatch, experts)
  double eager_kernel_us = 8;   // CPU launch time per kernel without graphs (hidden by longer GPU work)
  double runtime_reserve_gb = 2;  // HBM per GPU the memory plan keeps out of the KV cache (context, workspaces, ...)
  bool operator==(const StackParams&) const = default;
};

// The deployments a parameter is told apart by (see the file comment).
enum class ParamScope {
  kDense,          // applies to every model; identified by dense (non-MoE, non-MLA) models
  kDenseTp,        // ... by dense models with tensor parallelism (all-reduce)
  kBf16Gemm,       // dense GEMMs with BF16 weights
  kFp8Gemm,        // dense GEMMs with per-tensor FP8 weights (not block-scaled)
  kFp4Gemm,        // dense GEMMs with FP4 weights on FP4 units
  kBlockFp8,       // block-scaled FP8 weights
  kFp4Scaled,      // FP4 weights on FP4 units
  kSoftwareFp4,    // FP4 weights without FP4 units
  kGqa,            // grouped-query (non-MLA) attention
  kMla,            // multi-head latent attention
  kMoe,            // mixture-of-experts layers
  kExpertParallel, // expert parallelism (all-to-all)
  kScaleOut,       // collectives or transfers that leave the scale-up domain
  kDisaggregated,  // disaggregated prefill / decode hand-offs
  kMemory,         // every deployment; seen only where the KV cache binds (a schedule parameter)
};
// "dense models", "MLA models", ... (for messages).
const char* ParamScopeName(ParamScope scope);

// One named parameter: where it lives, its allowed range and what it means.
struct ParamInfo {
  const char* name;   // "gemm.fp8.max"
  double lo, hi;      // allowed range (inclusive)
  const char* unit;   // "fraction", "rows", "us", ...
  const char* doc;
  ParamScope scope;
  double* (*get)(StackParams&);
  // A schedule parameter sets the memory plan, so how many requests run at
  // once, not what a step costs: a replay of a recorded schedule cannot see
  // it, and calibration fits it by simulating (calibration.h).
  bool schedule = false;
};

// Every parameter, in a stable order.
const std::vector<ParamInfo>& StackParamInfo();
// The parameter called `name`, or nullptr.
const ParamInfo* FindParam(std::string_view name);
// Reads or writes a parameter by name. REQUIRES: FindParam(name) != nullptr.
double GetParam(const StackParams& p, std::string_view name);
void SetParam(StackParams& p, std::string_view name, double value);

// Why an operator ran at the efficiency it did (for --explain).
struct EfficiencyNote {
  double efficiency = 0;  // fraction of the peak the operator's bound uses
  double x = 0;           // the curve's argument (rows, tokens per expert, ...); 0 if constant
  std::string why;        // "gemm.fp8: 0.80 x 512 / (512 + 64)"
};

}  // namespace frontier::sim
