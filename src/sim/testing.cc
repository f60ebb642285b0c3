#include "sim/testing.h"

namespace frontier::sim::testing {

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
  s.vendor = "nvidia";
  s.gemm_flops_fraction = s.attention_flops_fraction = s.hbm_fraction = s.link_fraction = 1.0;
  s.step_overhead_us = s.layer_overhead_us = s.graph_layer_overhead_us = 0;
  s.allreduce_latency_us = s.alltoall_latency_us = 0;
  s.gpu_memory_utilization = 1.0;
  s.runtime_reserve_gb = 0;
  c.tp = tp;
  c.dp = dp;
  c.gpus = tp * dp;
  c.max_num_seqs = 64;
  c.max_num_batched_tokens = 2048;
  c.memory = PlanMemory(c);
  return c;
}

}  // namespace frontier::sim::testing
