// The efficiency curves, fixed costs and deployment paths of the step model
// on cases worked out by hand (the tiny deployment of testing.h: 2 layers,
// hidden 1024, 100 BF16 TFLOPS, 1 TB/s, a 100 GB/s switch).
#include "sim/engine/efficiency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "sim/engine/engine.h"
#include "sim/engine/step_model.h"
#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

TEST(CurveTest, SaturatesTowardItsMaximum) {
  const Curve c{0.8, 64};
  EXPECT_DOUBLE_EQ(c.At(64), 0.4);             // half the best at x = half
  EXPECT_DOUBLE_EQ(c.At(192), 0.8 * 192 / 256);  // 0.6
  EXPECT_DOUBLE_EQ(c.At(0), 0.0);
  EXPECT_DOUBLE_EQ((Curve{0.7, 0}).At(5), 0.7);  // half 0: a constant
  EXPECT_LT(c.At(1000), 0.8);
}

TEST(CurveTest, EveryParameterIsNamedOnceAndReadsBackWhatWasSet) {
  std::set<std::string> names;
  StackParams p;
  double v = 0.5;
  for (const auto& info : StackParamInfo()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_LT(info.lo, info.hi) << info.name;
    EXPECT_EQ(FindParam(info.name), &info);
    SetParam(p, info.name, v);
    EXPECT_DOUBLE_EQ(GetParam(p, info.name), v) << info.name;
    v += 0.01;
  }
  EXPECT_EQ(FindParam("gemm.fp16.max"), nullptr);
}

// One decode token with 99 cached (step_model_test.cc's case) with the BF16
// GEMM curve {max 0.5, half 100}: one row runs at 0.5 x 1 / 101 of peak, so
// the projections and the MLP become compute-bound:
//   projections  16,777,216 FLOPs x 101 / (0.5 x 1e14) = 33.889976 us (memory 16.785 us)
//   MLP          50,331,648 FLOPs x 101 / 5e13         = 101.669929 us
//   LM head       2,048,000 FLOPs x 101 / 5e13         =   4.136960 us (memory 2.054 us)
//   attention (decode) 0.827392 us and norms 0.016384 us as before.
TEST(StepModelCurveTest, OneRowGemmRunsAtMaxOverOnePlusHalf) {
  SimConfig c = testing::TinyConfig();
  c.stack.params.gemm_bf16 = Curve{0.5, 100};
  const StepModel m(c);
  BatchShape s;
  s.AddDecode(99, 1, 0);
  const StepCost cost = m.Cost(s);
  EXPECT_NEAR(cost.ops[kOpAttnProj].time_s, 16'777'216.0 * 101 / 5e13, 1e-15);
  EXPECT_EQ(cost.ops[kOpAttnProj].bound, Resource::kCompute);
  EXPECT_NEAR(cost.ops[kOpAttnProj].note.efficiency, 0.5 / 101, 1e-15);
  EXPECT_NEAR(cost.ops[kOpDenseMlp].time_s, 50'331'648.0 * 101 / 5e13, 1e-15);
  EXPECT_NEAR(cost.ops[kOpLmHead].time_s, 2'048'000.0 * 101 / 5e13, 1e-15);
  EXPECT_NEAR(cost.time_s, (16'777'216.0 + 50'331'648.0 + 2'048'000.0) * 101 / 5e13 + 0.827392e-6 + 0.016384e-6,
              1e-15);
  EXPECT_NE(cost.ops[kOpAttnProj].note.why.find("gemm.bf16"), std::string::npos);
}

// The tiny model with 4 experts of 1024 (top-2) in both layers.
SimConfig TinyMoe(int tp = 1, int dp = 1, int ep = 1) {
  SimConfig c = testing::TinyConfig(tp, dp);
  c.model.experts = 4;
  c.model.experts_per_token = 2;
  c.model.moe_intermediate = 1024;
  c.model.intermediate = 0;
  c.ep = ep;
  c.memory = PlanMemory(c);
  return c;
}

// 512 decode tokens route 1024 expert copies over 4 experts: 256 tokens per
// expert, so the grouped curve {0.5, 3} runs at 0.5 x 256 / 259. Per layer:
// FLOPs 2 x 512 x 2 x 3,145,728 (experts) + 2 x 512 x 1024 x 4 (router)
// = 6,446,645,248; two layers at 1e14 x 0.494 FLOP/s = 260.9 us, above the
// 71.3 us of bytes.
TEST(StepModelCurveTest, GroupedGemmByTokensPerExpert) {
  SimConfig c = TinyMoe();
  c.stack.params.grouped_gemm = Curve{0.5, 3};
  BatchShape s;
  for (int i = 0; i < 512; ++i) s.AddDecode(10, 1, 0);
  const StepCost cost = StepModel(c).Cost(s);
  const double flops = 2.0 * (2.0 * 512 * 2 * 3'145'728 + 2.0 * 512 * 1024 * 4);
  EXPECT_DOUBLE_EQ(cost.ops[kOpMoe].flops, flops);
  EXPECT_NEAR(cost.ops[kOpMoe].time_s, flops / (1e14 * 0.5 * 256 / 259), 1e-12);
  EXPECT_EQ(cost.ops[kOpMoe].bound, Resource::kCompute);
  EXPECT_NEAR(cost.ops[kOpMoe].note.x, 256.0, 1e-9);
  // Block-scaled FP8 experts pay scaling.block_fp8 on top.
  c.precision = c.ffn_precision = Precision::kFp8;
  c.model.precision = Precision::kFp8;
  c.model.block_scaled_fp8 = true;
  c.stack.params.block_fp8 = 0.8;
  const StepCost fp8 = StepModel(c).Cost(s);
  EXPECT_NEAR(fp8.ops[kOpMoe].time_s, flops / (2e14 * 0.5 * 256 / 259 * 0.8), 1e-12);
}

// FP4 experts on a GPU without FP4 units run at the FP8 peak times
// scaling.software_fp4; with FP4 units at the FP4 peak times scaling.fp4.
TEST(StepModelCurveTest, Fp4WithAndWithoutFp4Units) {
  SimConfig c = TinyMoe();
  c.ffn_precision = Precision::kFp4;
  c.stack.params.software_fp4 = 0.4;
  c.stack.params.fp4_scaled = 0.9;
  BatchShape s;
  for (int i = 0; i < 512; ++i) s.AddDecode(10, 1, 0);
  const double flops = StepModel(c).Cost(s).ops[kOpMoe].flops;
  EXPECT_NEAR(StepModel(c).Cost(s).ops[kOpMoe].time_s, flops / (200e12 * 0.4), 1e-12);  // no FP4: FP8 peak
  c.hardware.fp4_tflops = 400;
  EXPECT_NEAR(StepModel(c).Cost(s).ops[kOpMoe].time_s, flops / (400e12 * 0.9), 1e-12);
}

// Kernel floors: 2 layers x (5 attention + 4 MLP kernels) + 4 per step = 22
// kernels x 2 us = 44 us on every step. The scheduler adds 100 us + 1 us per
// sequence, or only what exceeds the GPU's time with an overlap scheduler.
// A prefill step is not graph-captured: its 22 launches at 30 us (660 us)
// show where they exceed the GPU's work.
TEST(StepModelCurveTest, KernelFloorsLaunchesAndSchedulerTime) {
  SimConfig c = testing::TinyConfig();
  BatchShape d;
  for (int i = 0; i < 3; ++i) d.AddDecode(99, 1, 0);
  const double roofline = StepModel(c).Cost(d).time_s;
  c.stack.params.kernel_us = 2;
  c.stack.params.step_us = 100;
  c.stack.params.per_seq_us = 1;
  c.stack.params.eager_kernel_us = 30;
  const StepCost cost = StepModel(c).Cost(d);
  EXPECT_NEAR(cost.ops[kOpKernels].time_s, 44e-6, 1e-15);
  EXPECT_NEAR(cost.ops[kOpScheduler].time_s, 103e-6, 1e-15);
  EXPECT_NEAR(cost.time_s, roofline + 147e-6, 1e-15);
  c.stack.overlap_scheduler = true;
  const double gpu = roofline + 44e-6;
  EXPECT_NEAR(StepModel(c).Cost(d).time_s, std::max(gpu, 103e-6), 1e-15);
  c.stack.overlap_scheduler = false;
  BatchShape p;
  p.AddPrefill(0, 16, 0, true);
  c.stack.params.step_us = c.stack.params.per_seq_us = 0;
  const double work = StepModel(c).Cost(p).ops[kOpAttnProj].time_s;  // any op: the launches compare to all work
  (void)work;
  const StepCost pre = StepModel(c).Cost(p);
  double gpu_work = 0;
  for (int i = 0; i < kNumOps; ++i)
    if (i != kOpKernels && i != kOpScheduler) gpu_work += pre.ops[i].time_s;
  EXPECT_NEAR(pre.ops[kOpKernels].time_s, 44e-6 + std::max(0.0, 660e-6 - (gpu_work + 44e-6)), 1e-15);
}

// Attention DP with EP on 2 GPUs: two decode sequences, one per rank. Each
// MoE layer dispatches (BF16, 2 B) and combines (2 B) each token's 2 expert
// copies, half of them to the peer: (2 tokens / 2 GPUs) x 2 x 1024 x 1/2 x 4 B
// = 4,096 B at 100 GB/s = 40.96 ns, plus 2 x 5 us of latency.
TEST(StepModelCurveTest, AttentionDpAllToAllByHand) {
  SimConfig c = TinyMoe(/*tp=*/1, /*dp=*/2, /*ep=*/2);
  c.attention_dp = true;
  c.stack.params.alltoall_us = 5;
  BatchShape s;
  s.AddDecode(50, 1, 0);
  s.AddDecode(60, 1, 0);
  const StepCost cost = StepModel(c).Cost(s);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAllToAll].bytes, 2 * 4096.0);
  EXPECT_NEAR(cost.ops[kOpAllToAll].time_s, 2 * (10e-6 + 4096.0 / 100e9), 1e-15);
  // The busiest rank holds one sequence: the attention projections of one token.
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnProj].flops, 16'777'216.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAllReduce].time_s, 0.0);  // no TP
}

// EP inside one TP group (--tp 2 --ep 2, no attention DP): both ranks hold
// every token after the attention all-reduce, so no token moves; each rank
// runs its two whole experts and the MoE output is summed by the same TP
// all-reduce as under --ep 1: 2 layers x 2 (attention + MoE) all-reduces.
// The expert weights read per GPU are the same half of the touched experts.
TEST(StepModelCurveTest, ExpertParallelismWithinTensorParallelismAllReduces) {
  SimConfig tp_only = TinyMoe(/*tp=*/2, /*dp=*/1, /*ep=*/1);
  SimConfig ep_in_tp = TinyMoe(/*tp=*/2, /*dp=*/1, /*ep=*/2);
  for (SimConfig* c : {&tp_only, &ep_in_tp}) {
    c->stack.params.alltoall_us = 5;
    c->stack.params.allreduce_us = 7;
  }
  BatchShape s;
  s.AddDecode(50, 1, 0);
  const StepCost a = StepModel(tp_only).Cost(s);
  const StepCost b = StepModel(ep_in_tp).Cost(s);
  EXPECT_DOUBLE_EQ(b.ops[kOpAllToAll].time_s, 0.0);
  EXPECT_DOUBLE_EQ(b.ops[kOpAllReduce].time_s, a.ops[kOpAllReduce].time_s);
  // 1 token x 1024 x 2 B per all-reduce, ring 2 x 1/2 at 100 GB/s, plus 7 us; 4 of them.
  EXPECT_NEAR(b.ops[kOpAllReduce].time_s, 4 * (2048.0 / 100e9 + 7e-6), 1e-15);
  EXPECT_DOUBLE_EQ(b.ops[kOpMoe].bytes, a.ops[kOpMoe].bytes);
  // Attention DP over the same 2 GPUs does move tokens.
  SimConfig dp = TinyMoe(/*tp=*/1, /*dp=*/2, /*ep=*/2);
  dp.attention_dp = true;
  dp.stack.params.alltoall_us = 5;
  EXPECT_GT(StepModel(dp).Cost(s).ops[kOpAllToAll].time_s, 0.0);
}

// EP over 8 GPUs in domains of 4 joined by 10 GB/s NICs: of each GPU's 7
// peers 3 share its domain and 4 do not. 8 decode tokens send (1 token per
// GPU) x 2 copies x 1024 x 7/8 x 4 B = 7,168 B per layer: 3,072 B over the
// fabric (30.72 ns) while 4,096 B cross the NICs (409.6 ns), plus
// 2 x (5 + 7) us of latency.
TEST(StepModelCurveTest, ExpertParallelismAcrossNodesUsesTheNics) {
  SimConfig c = TinyMoe(/*tp=*/1, /*dp=*/8, /*ep=*/8);
  c.hardware.scale_up_gpus = 4;
  c.hardware.nic_gbps = 10;
  c.stack.params.alltoall_us = 5;
  c.stack.params.nic_latency_us = 7;
  BatchShape s;
  for (int i = 0; i < 8; ++i) s.AddDecode(30, 1, 0);
  const StepCost cost = StepModel(c).Cost(s);
  EXPECT_NEAR(cost.ops[kOpAllToAll].time_s, 2 * (24e-6 + 4096.0 / 10e9), 1e-15);
  c.hardware.nic_gbps = 20;  // a faster NIC: only the inter-node share shrinks
  EXPECT_NEAR(StepModel(c).Cost(s).ops[kOpAllToAll].time_s, 2 * (24e-6 + 4096.0 / 20e9), 1e-15);
}

// Disaggregated: one prefill and one decode worker (tiny, TP 1). A request of
// 100 prompt tokens and 3 outputs: its prompt takes one prefill step P; its
// KV cache (100 tokens x 2 layers x 4,096 B = 819,200 B) then travels at
// 1 GB/s after a 10 us hand-off: 829.2 us; its first token lands at
// P + 829.2 us, and two decode steps follow on the decode worker.
TEST(DisaggregatedEngineTest, TimelineByHand) {
  SimConfig c = testing::TinyConfig();
  c.stack.params.kv_transfer_us = 10;
  DisaggConfig d;
  for (PoolConfig* p : {&d.prefill, &d.decode}) {
    p->workers = 1;
    p->max_num_seqs = c.max_num_seqs;
    p->max_num_batched_tokens = c.max_num_batched_tokens;
    p->memory = c.memory;
  }
  d.kv_gbps = 1;
  d.kv_bytes_per_token = 2 * 8 * 128 * 2 * 2;  // K and V, 8 heads of 128, BF16, 2 layers
  c.disagg = d;
  Engine engine(c);
  ASSERT_TRUE(engine.disaggregated());
  ASSERT_TRUE(engine.Add(7, 100, 3).ok());
  const StepModel model(c.PoolView(SimConfig::Pool::kPrefill));
  BatchShape prefill;
  prefill.AddPrefill(0, 100, 0, true);
  const Nanos p = model.StepNanos(prefill);
  BatchShape d1, d2;
  d1.AddDecode(100, 1, 0);
  d2.AddDecode(101, 1, 0);
  const Nanos transfer = 10'000 + 819'200;
  Nanos t = 0;
  std::vector<std::pair<Nanos, Engine::Emission>> seen;
  while (!engine.Idle()) {
    Engine::Step step = NextStep(engine);
    t += step.duration_ns;
    for (const auto& e : step.emissions) seen.push_back({t, e});
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, p + transfer);
  EXPECT_TRUE(seen[0].second.first);
  EXPECT_EQ(seen[1].first, p + transfer + model.StepNanos(d1));
  EXPECT_EQ(seen[2].first, p + transfer + model.StepNanos(d1) + model.StepNanos(d2));
  EXPECT_TRUE(seen[2].second.finished);
}

// The engine costs decode-only steps through DecodeStepCost (the batch's
// fixed costs once, the keys per step): it equals the full model to the
// nanosecond for dense, MoE, MLA and sliding-window models, DP ranks, an
// overlap scheduler and steps without graphs.
TEST(DecodeStepCostTest, EqualsTheFullModel) {
  struct Case {
    const char* model;
    const char* hardware;
    int tp, dp, ep;
  };
  for (const Case& k : {Case{"llama-3.1-70b", "h200", 8, 1, 1}, Case{"deepseek-r1", "mi300x", 8, 1, 1},
                        Case{"deepseek-r1", "h200", 1, 8, 8}, Case{"gpt-oss-120b", "b200", 2, 2, 1},
                        Case{"mixtral-8x7b", "h100", 2, 4, 8}}) {
    SimSpec spec;
    spec.model = k.model;
    spec.hardware = k.hardware;
    spec.tp = k.tp;
    spec.dp = k.dp;
    spec.ep = k.ep;
    Result<SimConfig> c = ResolveSimConfig(spec);
    ASSERT_TRUE(c.ok()) << k.model << ": " << c.status().ToString();
    for (bool overlap : {false, true}) {
      for (bool graphs : {true, false}) {
        c->stack.overlap_scheduler = overlap;
        c->stack.graphs = graphs;
        const StepModel m(*c);
        for (int64_t seqs : {1, 7, 64, 513}) {
          const DecodeStepCost d = m.DecodeStep(seqs);
          BatchShape s;
          for (int64_t i = 0; i < seqs; ++i) s.AddDecode(100 + 37 * i, 1, c->model.sliding_window);
          EXPECT_NEAR(static_cast<double>(d.At(s.decode_keys_full, s.decode_keys_swa)),
                      static_cast<double>(m.StepNanos(s)), 1.0)
              << k.model << " seqs " << seqs << " overlap " << overlap << " graphs " << graphs;
        }
      }
    }
  }
}

// More of any efficiency (a curve's maximum, a scaling factor, a bandwidth
// fraction) never makes a step slower; more of any latency, floor, CPU time
// or a curve's half never makes it faster. Checked on a dense and an MoE
// shape with every catalogued stack's parameters as the starting point.
TEST(StepModelMonotonicityTest, EveryParameterMovesStepTimeOneWay) {
  SimConfig dense = testing::TinyConfig(2, 1);
  SimConfig moe = TinyMoe(1, 4, 4);
  moe.hardware.scale_up_gpus = 2;
  moe.hardware.nic_gbps = 20;
  BatchShape mixed;
  for (int i = 0; i < 24; ++i) mixed.AddDecode(200 + 7 * i, 1, 0);
  mixed.AddPrefill(0, 700, 0, true);
  BatchShape decode;
  for (int i = 0; i < 6; ++i) decode.AddDecode(900, 1, 0);
  for (SimConfig* base : {&dense, &moe}) {
    for (const auto& info : StackParamInfo()) {
      const std::string name = info.name;
      const bool efficiency = info.hi <= 1.0;  // fractions and factors
      for (const BatchShape* shape : {&mixed, &decode}) {
        double last = -1;
        for (double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
          SimConfig c = *base;
          c.stack.params = StackParams{};
          const double v = std::clamp(GetParam(c.stack.params, name) * scale, info.lo, info.hi);
          SetParam(c.stack.params, name, v);
          const double t = StepModel(c).Cost(*shape).time_s;
          if (last >= 0) {
            if (efficiency) {
              EXPECT_LE(t, last * (1 + 1e-12)) << name << " x" << scale;
            } else {
              EXPECT_GE(t, last * (1 - 1e-12)) << name << " x" << scale;
            }
          }
          last = t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace frontier::sim
