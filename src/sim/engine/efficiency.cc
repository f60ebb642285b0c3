#include "sim/engine/efficiency.h"

namespace frontier::sim {

#define FRONTIER_PARAM(NAME, LO, HI, UNIT, DOC, SCOPE, FIELD) \
  ParamInfo { NAME, LO, HI, UNIT, DOC, ParamScope::SCOPE, [](StackParams& p) -> double* { return &p.FIELD; } }

const char* ParamScopeName(ParamScope scope) {
  switch (scope) {
    case ParamScope::kDense: return "dense (non-MoE, non-MLA) models";
    case ParamScope::kDenseTp: return "dense models with tensor parallelism";
    case ParamScope::kBf16Gemm: return "models with BF16 weights";
    case ParamScope::kFp8Gemm: return "models with per-tensor FP8 weights";
    case ParamScope::kFp4Gemm: return "models with FP4 weights on FP4 units";
    case ParamScope::kBlockFp8: return "models with block-scaled FP8 weights";
    case ParamScope::kFp4Scaled: return "models with FP4 weights on FP4 units";
    case ParamScope::kSoftwareFp4: return "models with FP4 weights on GPUs without FP4 units";
    case ParamScope::kGqa: return "models with grouped-query attention";
    case ParamScope::kMla: return "models with multi-head latent attention";
    case ParamScope::kMoe: return "mixture-of-experts models";
    case ParamScope::kExpertParallel: return "deployments with expert parallelism across DP ranks (all-to-all)";
    case ParamScope::kScaleOut: return "deployments that span scale-up domains";
    case ParamScope::kDisaggregated: return "disaggregated deployments";
    case ParamScope::kMemory: return "runs whose KV cache binds";
  }
  return "?";
}

const std::vector<ParamInfo>& StackParamInfo() {
  static const std::vector<ParamInfo> info = {
      FRONTIER_PARAM("gemm.bf16.max", 0.01, 1.0, "fraction", "BF16 dense GEMM: best fraction of peak", kBf16Gemm, gemm_bf16.max),
      FRONTIER_PARAM("gemm.bf16.half", 0, 1e5, "rows", "BF16 dense GEMM: rows per GPU at half the best", kBf16Gemm, gemm_bf16.half),
      FRONTIER_PARAM("gemm.fp8.max", 0.01, 1.0, "fraction", "FP8 dense GEMM: best fraction of peak", kFp8Gemm, gemm_fp8.max),
      FRONTIER_PARAM("gemm.fp8.half", 0, 1e5, "rows", "FP8 dense GEMM: rows per GPU at half the best", kFp8Gemm, gemm_fp8.half),
      FRONTIER_PARAM("gemm.fp4.max", 0.01, 1.0, "fraction", "FP4 dense GEMM: best fraction of peak", kFp4Gemm, gemm_fp4.max),
      FRONTIER_PARAM("gemm.fp4.half", 0, 1e5, "rows", "FP4 dense GEMM: rows per GPU at half the best", kFp4Gemm, gemm_fp4.half),
      FRONTIER_PARAM("grouped_gemm.max", 0.01, 1.0, "fraction", "grouped MoE GEMM: best fraction of peak", kMoe,
                     grouped_gemm.max),
      FRONTIER_PARAM("grouped_gemm.half", 0, 1e5, "tokens/expert",
                     "grouped MoE GEMM: tokens per expert at half the best", kMoe, grouped_gemm.half),
      FRONTIER_PARAM("scaling.block_fp8", 0.01, 1.0, "factor",
                     "GEMMs with 128x128 block-scaled FP8 weights (dense and grouped): efficiency multiplier", kBlockFp8, block_fp8),
      FRONTIER_PARAM("scaling.fp4", 0.01, 1.0, "factor",
                     "GEMMs with micro-scaled FP4 weights (MXFP4 / NVFP4) on FP4 units: efficiency multiplier", kFp4Scaled, fp4_scaled),
      FRONTIER_PARAM("scaling.software_fp4", 0.01, 1.0, "factor",
                     "GEMMs with FP4 weights on hardware without FP4 units (dequantised in software): efficiency "
                     "multiplier on the wider format's peak", kSoftwareFp4,
                     software_fp4),
      FRONTIER_PARAM("attention.prefill.max", 0.01, 1.0, "fraction", "prefill attention (GQA): best fraction of BF16 peak", kGqa,
                     attn_prefill.max),
      FRONTIER_PARAM("attention.prefill.half", 0, 1e6, "tokens",
                     "prefill attention (GQA): new tokens per sequence at half the best", kGqa, attn_prefill.half),
      FRONTIER_PARAM("attention.mla_prefill.max", 0.01, 1.0, "fraction",
                     "prefill attention of MLA models (expanded form): best fraction of BF16 peak", kMla,
                     mla_prefill.max),
      FRONTIER_PARAM("attention.mla_prefill.half", 0, 1e6, "tokens",
                     "prefill attention of MLA models: new tokens per sequence at half the best", kMla,
                     mla_prefill.half),
      FRONTIER_PARAM("attention.decode_bw", 0.01, 1.0, "fraction", "decode attention (GQA): fraction of HBM bandwidth", kGqa,
                     attn_decode_bw),
      FRONTIER_PARAM("attention.mla_decode_bw", 0.01, 1.0, "fraction",
                     "decode attention (MLA, absorbed): fraction of HBM bandwidth and of BF16 peak", kMla, mla_decode_bw),
      FRONTIER_PARAM("hbm", 0.01, 1.0, "fraction", "weight and activation streaming: fraction of HBM bandwidth", kDense, hbm),
      FRONTIER_PARAM("collectives.link", 0.01, 1.0, "fraction", "collectives: fraction of scale-up link bandwidth", kDenseTp,
                     link),
      FRONTIER_PARAM("collectives.nic", 0.01, 1.0, "fraction", "collectives and KV transfer: fraction of NIC bandwidth", kScaleOut,
                     nic),
      FRONTIER_PARAM("collectives.allreduce_us", 0, 1e5, "us", "latency of one all-reduce", kDenseTp, allreduce_us),
      FRONTIER_PARAM("collectives.alltoall_us", 0, 1e5, "us", "latency of one EP dispatch or combine", kExpertParallel, alltoall_us),
      FRONTIER_PARAM("collectives.nic_latency_us", 0, 1e5, "us", "extra latency of a collective that leaves the node", kScaleOut,
                     nic_latency_us),
      FRONTIER_PARAM("collectives.kv_transfer_us", 0, 1e6, "us", "fixed cost of one disaggregated KV hand-off", kDisaggregated,
                     kv_transfer_us),
      FRONTIER_PARAM("overhead.step_us", 0, 1e6, "us", "scheduler CPU time per step", kDense, step_us),
      FRONTIER_PARAM("overhead.per_seq_us", 0, 1e4, "us", "scheduler CPU time per scheduled sequence", kDense, per_seq_us),
      FRONTIER_PARAM("overhead.kernel_us", 0, 1e4, "us", "per-kernel GPU floor (ramp, tail, gaps), every step", kDense,
                     kernel_us),
      FRONTIER_PARAM("overhead.mla_kernel_us", 0, 1e4, "us",
                     "extra GPU time per kernel of an MLA attention block, on top of overhead.kernel_us", kMla,
                     mla_kernel_us),
      FRONTIER_PARAM("overhead.moe_kernel_us", 0, 1e4, "us",
                     "extra GPU time per kernel of an MoE block, on top of overhead.kernel_us", kMoe, moe_kernel_us),
      FRONTIER_PARAM("overhead.eager_kernel_us", 0, 1e4, "us", "CPU launch time per kernel in steps not captured in a graph (shows when it exceeds the GPU work)", kDense, eager_kernel_us),
      ParamInfo{"memory.runtime_reserve_gb", 0, 1e3, "GB",
                "HBM per GPU kept out of the KV cache beyond weights and the profiled activations (runtime context, "
                "communication buffers, workspaces)",
                ParamScope::kMemory, [](StackParams& p) -> double* { return &p.runtime_reserve_gb; }, true},
  };
  return info;
}

#undef FRONTIER_PARAM

const ParamInfo* FindParam(std::string_view name) {
  for (const auto& p : StackParamInfo())
    if (name == p.name) return &p;
  return nullptr;
}

double GetParam(const StackParams& p, std::string_view name) {
  StackParams copy = p;
  return *FindParam(name)->get(copy);
}

void SetParam(StackParams& p, std::string_view name, double value) { *FindParam(name)->get(p) = value; }

}  // namespace frontier::sim
