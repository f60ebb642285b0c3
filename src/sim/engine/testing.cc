#include "sim/engine/testing.h"

namespace frontier::sim::testing {

StackParams IdealParams() {
  StackParams p;
  p.gemm_bf16 = p.gemm_fp8 = p.gemm_fp4 = p.grouped_gemm = p.attn_prefill = Curve{1.0, 0.0};
  p.block_fp8 = p.fp4_scaled = p.software_fp4 = 1.0;
  p.attn_decode_bw = p.mla_decode_bw = p.hbm = p.link = p.nic = 1.0;
  p.allreduce_us = p.alltoall_us = p.nic_latency_us = p.kv_transfer_us = 0;
  p.step_us = p.per_seq_us = p.kernel_us = p.eager_kernel_us = 0;
  p.runtime_reserve_gb = 0;
  return p;
}

SimConfig TinyConfig(int tp, int dp) {
  SimConfig c;
  ModelSpec& m = c.model;
  m.name = "tiny";
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.intermediate = 4096;
  m.vocab = 1000;
  m.max_context = 1 << 20;
  Hardware& h = c.hardware;
  h.name = "toy";
  h.vendor = "nvidia";
  h.bf16_tflops = 100;
  h.fp8_tflops = 200;
  h.hbm_gb = 10;
  h.hbm_tbps = 1;
  h.topology = Topology::kSwitch;
  h.link_gbps = 100;
  h.links = 1;
  h.scale_up_gpus = 8;
  Stack& s = c.stack;
  s.name = "ideal";
  s.version = "0";
  s.vendor = "nvidia";
  s.params = IdealParams();
  s.gpu_memory_utilization = 1.0;
  c.tp = tp;
  c.dp = dp;
  c.gpus = tp * dp;
  c.max_num_seqs = 64;
  c.max_num_batched_tokens = 2048;
  c.memory = PlanMemory(c);
  return c;
}

}  // namespace frontier::sim::testing
