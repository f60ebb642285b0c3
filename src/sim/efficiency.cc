#include "sim/efficiency.h"

namespace frontier::sim {

#define FRONTIER_PARAM(NAME, LO, HI, UNIT, DOC, FIELD) \
  ParamInfo { NAME, LO, HI, UNIT, DOC, [](StackParams& p) -> double* { return &p.FIELD; } }

const std::vector<ParamInfo>& StackParamInfo() {
  static const std::vector<ParamInfo> info = {
      FRONTIER_PARAM("gemm.bf16.max", 0.01, 1.0, "fraction", "BF16 dense GEMM: best fraction of peak", gemm_bf16.max),
      FRONTIER_PARAM("gemm.bf16.half", 0, 1e5, "rows", "BF16 dense GEMM: rows per GPU at half the best", gemm_bf16.half),
      FRONTIER_PARAM("gemm.fp8.max", 0.01, 1.0, "fraction", "FP8 dense GEMM: best fraction of peak", gemm_fp8.max),
      FRONTIER_PARAM("gemm.fp8.half", 0, 1e5, "rows", "FP8 dense GEMM: rows per GPU at half the best", gemm_fp8.half),
      FRONTIER_PARAM("gemm.fp4.max", 0.01, 1.0, "fraction", "FP4 dense GEMM: best fraction of peak", gemm_fp4.max),
      FRONTIER_PARAM("gemm.fp4.half", 0, 1e5, "rows", "FP4 dense GEMM: rows per GPU at half the best", gemm_fp4.half),
      FRONTIER_PARAM("grouped_gemm.max", 0.01, 1.0, "fraction", "grouped MoE GEMM: best fraction of peak",
                     grouped_gemm.max),
      FRONTIER_PARAM("grouped_gemm.half", 0, 1e5, "tokens/expert",
                     "grouped MoE GEMM: tokens per expert at half the best", grouped_gemm.half),
      FRONTIER_PARAM("scaling.block_fp8", 0.01, 1.0, "factor",
                     "GEMMs with 128x128 block-scaled FP8 weights (dense and grouped): efficiency multiplier", block_fp8),
      FRONTIER_PARAM("scaling.fp4", 0.01, 1.0, "factor",
                     "GEMMs with micro-scaled FP4 weights (MXFP4 / NVFP4) on FP4 units: efficiency multiplier", fp4_scaled),
      FRONTIER_PARAM("scaling.software_fp4", 0.01, 1.0, "factor",
                     "GEMMs with FP4 weights on hardware without FP4 units (dequantised in software): efficiency "
                     "multiplier on the wider format's peak",
                     software_fp4),
      FRONTIER_PARAM("attention.prefill.max", 0.01, 1.0, "fraction", "prefill attention: best fraction of BF16 peak",
                     attn_prefill.max),
      FRONTIER_PARAM("attention.prefill.half", 0, 1e6, "tokens",
                     "prefill attention: new tokens per sequence at half the best", attn_prefill.half),
      FRONTIER_PARAM("attention.decode_bw", 0.01, 1.0, "fraction", "decode attention (GQA): fraction of HBM bandwidth",
                     attn_decode_bw),
      FRONTIER_PARAM("attention.mla_decode_bw", 0.01, 1.0, "fraction",
                     "decode attention (MLA, absorbed): fraction of HBM bandwidth and of BF16 peak", mla_decode_bw),
      FRONTIER_PARAM("hbm", 0.01, 1.0, "fraction", "weight and activation streaming: fraction of HBM bandwidth", hbm),
      FRONTIER_PARAM("collectives.link", 0.01, 1.0, "fraction", "collectives: fraction of scale-up link bandwidth",
                     link),
      FRONTIER_PARAM("collectives.nic", 0.01, 1.0, "fraction", "collectives and KV transfer: fraction of NIC bandwidth",
                     nic),
      FRONTIER_PARAM("collectives.allreduce_us", 0, 1e5, "us", "latency of one all-reduce", allreduce_us),
      FRONTIER_PARAM("collectives.alltoall_us", 0, 1e5, "us", "latency of one EP dispatch or combine", alltoall_us),
      FRONTIER_PARAM("collectives.nic_latency_us", 0, 1e5, "us", "extra latency of a collective that leaves the node",
                     nic_latency_us),
      FRONTIER_PARAM("collectives.kv_transfer_us", 0, 1e6, "us", "fixed cost of one disaggregated KV hand-off",
                     kv_transfer_us),
      FRONTIER_PARAM("overhead.step_us", 0, 1e6, "us", "scheduler CPU time per step", step_us),
      FRONTIER_PARAM("overhead.per_seq_us", 0, 1e4, "us", "scheduler CPU time per scheduled sequence", per_seq_us),
      FRONTIER_PARAM("overhead.kernel_us", 0, 1e4, "us", "per-kernel GPU floor (ramp, tail, gaps), every step",
                     kernel_us),
      FRONTIER_PARAM("overhead.eager_kernel_us", 0, 1e4, "us", "CPU launch time per kernel in steps not captured in a graph (shows when it exceeds the GPU work)", eager_kernel_us),
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
