#include "sim/engine/step_model.h"

#include <gtest/gtest.h>

#include "sim/engine/config.h"
#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

// One decode token with 99 tokens cached, on the tiny BF16 model, TP 1.
// Worked out by hand (h = 1024, 2 layers, heads = kv heads = 8 x 128, MLP 4096,
// vocab 1000, 100 TFLOPS, 1 TB/s, every fraction 1, no overheads):
//   attention projections: params/layer = 4 h^2 = 4,194,304
//     FLOPs = 2 x 1 x 4,194,304 x 2 = 16,777,216
//     bytes = 4,194,304 x 2 B x 2 + (1 token x 2 layers x 2h x 2 B = 8,192) = 16,785,408
//     time  = max(1.678e-7 s, 1.6785408e-5 s) = 16.785408 us (memory)
//   dense MLP: params/layer = 3 x 1024 x 4096 = 12,582,912
//     FLOPs = 2 x 12,582,912 x 2 = 50,331,648
//     bytes = 2 x (12,582,912 x 2 + 1 x (2h + 3 x 4096) x 2) = 2 x (25,165,824 + 28,672) = 50,388,992
//     time  = 50.388992 us
//   attention (decode): 100 keys, 100 query-key pairs per layer
//     KV bytes/token/layer = 2 x 8 x 128 x 2 B = 4,096
//     FLOPs = 2 x 200 pairs x 8 heads x 256 = 819,200
//     bytes = 200 keys x 4,096 + 1 x 2 layers x 8 heads x 256 x 2 B = 819,200 + 8,192 = 827,392
//     time  = 0.827392 us
//   LM head: FLOPs = 2 x 1 x 1024 x 1000 = 2,048,000; bytes = 1000 x 1024 x 2 + 1000 x 4 + 1024 x 2
//     = 2,048,000 + 4,000 + 2,048 = 2,054,048 -> 2.054048 us
//   norms & activations: 1 x 2 layers x 4 x 1024 x 2 B = 16,384 B -> 0.016384 us
//   total = 16.785408 + 50.388992 + 0.827392 + 2.054048 + 0.016384 = 70.072224 us
TEST(StepModelTest, HandComputedRooflineOfOneDecodeToken) {
  const SimConfig c = testing::TinyConfig();
  const StepModel m(c);
  BatchShape s;
  s.AddDecode(99, 1, 0);
  const StepCost cost = m.Cost(s);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnProj].flops, 16'777'216.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnProj].bytes, 16'785'408.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpDenseMlp].flops, 50'331'648.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpDenseMlp].bytes, 50'388'992.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnDecode].flops, 819'200.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnDecode].bytes, 827'392.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpLmHead].flops, 2'048'000.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpLmHead].bytes, 2'054'048.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpElementwise].bytes, 16'384.0);
  EXPECT_NEAR(cost.time_s, 70.072224e-6, 1e-15);
  EXPECT_EQ(cost.bound, Resource::kMemory);
  EXPECT_EQ(cost.ns(), 70'072);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAllReduce].time_s, 0.0);  // TP 1: no collective
}

// A 4,096-token prefill chunk is compute-bound in the MLP:
//   FLOPs = 2 x 4096 x 12,582,912 x 2 = 206,158,430,208 -> 2.06158 ms at 100 TFLOPS
//   bytes = 2 x (25,165,824 + 4096 x 14,336 x 2 B) = 285,212,672 -> 0.285 ms
TEST(StepModelTest, LongPrefillIsComputeBound) {
  const StepModel m(testing::TinyConfig());
  BatchShape s;
  s.AddPrefill(0, 4096, 0, true);
  const StepCost cost = m.Cost(s);
  EXPECT_DOUBLE_EQ(cost.ops[kOpDenseMlp].flops, 206'158'430'208.0);
  EXPECT_NEAR(cost.ops[kOpDenseMlp].time_s, 206'158'430'208.0 / 100e12, 1e-12);
  EXPECT_EQ(cost.ops[kOpDenseMlp].bound, Resource::kCompute);
  // Causal attention pairs: 4096 x 4097 / 2 per layer.
  EXPECT_DOUBLE_EQ(s.prefill_pairs_full, 4096.0 * 4097.0 / 2.0);
  EXPECT_EQ(cost.bound, Resource::kCompute);
}

// FP8 feed-forward weights with BF16 attention, on the tiny model (FP8 peak
// 200 TFLOPS). One decode token, as HandComputedRooflineOfOneDecodeToken but
// the MLP reads 1 B a weight:
//   bytes = 2 x (12,582,912 x 1 B + 28,672) = 25,223,168 -> 25.223168 us
// while the attention projections still read 2 B (16,785,408 bytes). A
// 4,096-token prefill runs the MLP at the FP8 peak and the projections at the
// BF16 one:
//   MLP  206,158,430,208 FLOPs / 200 TFLOPS = 1.03079 ms
//   proj 2 x 4096 x 4,194,304 x 2 = 68,719,476,736 FLOPs / 100 TFLOPS = 0.687 ms
// With one of the two layers' MLP left unquantized (in BF16):
//   decode bytes = (12,582,912 x 2 + 28,672) + (12,582,912 x 1 + 28,672) = 37,806,080
//   prefill time = 103,079,215,104 / 100e12 + 103,079,215,104 / 200e12 = 1.54619 ms
TEST(StepModelTest, FeedForwardPrecisionAppliesToTheMlpOnly) {
  SimConfig c = testing::TinyConfig();
  c.ffn_precision = Precision::kFp8;
  BatchShape d;
  d.AddDecode(99, 1, 0);
  BatchShape p;
  p.AddPrefill(0, 4096, 0, true);
  {
    const StepModel m(c);
    const StepCost dc = m.Cost(d);
    EXPECT_DOUBLE_EQ(dc.ops[kOpDenseMlp].bytes, 25'223'168.0);
    EXPECT_NEAR(dc.ops[kOpDenseMlp].time_s, 25.223168e-6, 1e-15);
    EXPECT_DOUBLE_EQ(dc.ops[kOpAttnProj].bytes, 16'785'408.0);
    EXPECT_NEAR(dc.time_s, 70.072224e-6 - (50.388992e-6 - 25.223168e-6), 1e-15);
    const StepCost pc = m.Cost(p);
    EXPECT_NEAR(pc.ops[kOpDenseMlp].time_s, 206'158'430'208.0 / 200e12, 1e-12);
    EXPECT_EQ(pc.ops[kOpDenseMlp].bound, Resource::kCompute);
    EXPECT_EQ(pc.ops[kOpDenseMlp].note.why, "gemm.fp8: 1.000 of peak");
    EXPECT_NEAR(pc.ops[kOpAttnProj].time_s, 68'719'476'736.0 / 100e12, 1e-12);
    EXPECT_EQ(pc.ops[kOpAttnProj].note.why, "gemm.bf16: 1.000 of peak");
  }
  c.model.ffn_unquantized_layers = 1;
  const StepModel m(c);
  EXPECT_DOUBLE_EQ(m.Cost(d).ops[kOpDenseMlp].bytes, 37'806'080.0);
  EXPECT_NEAR(m.Cost(p).ops[kOpDenseMlp].time_s, 103'079'215'104.0 / 100e12 + 103'079'215'104.0 / 200e12, 1e-12);
}

// The catalogued FP8 Llama 3.1 405B at TP 8 on H100, one decode token: the
// weights dominate the bytes each operator reads. Per GPU:
//   MLP: (124 x 1 B + 2 x 2 B) x 3 x 16384 x 53248 / 8 = 41,875,931,136 B of
//        weights + 126 layers x (2 x 16384 + 3 x 53248 / 8) x 2 B = 13,289,472
//        B of activations = 41,889,220,608 B
//   attention projections: 570,425,344 / 8 params x 2 B x 126 = 17,968,398,336
//        B + 126 x 2 x 16384 x 2 B = 8,257,536 B = 17,976,655,872 B
TEST(StepModelTest, Llama405bFp8ReadsFp8MlpAndBf16Projections) {
  SimSpec spec;
  spec.model = "llama-3.1-405b-fp8";
  spec.hardware = "h100";
  spec.tp = 8;
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  BatchShape s;
  s.AddDecode(999, 1, 0);
  const StepCost cost = StepModel(*c).Cost(s);
  EXPECT_DOUBLE_EQ(cost.ops[kOpDenseMlp].bytes, 41'889'220'608.0);
  EXPECT_DOUBLE_EQ(cost.ops[kOpAttnProj].bytes, 17'976'655'872.0);
  EXPECT_EQ(cost.ops[kOpDenseMlp].bound, Resource::kMemory);
  EXPECT_EQ(cost.ops[kOpAttnProj].bound, Resource::kMemory);
  EXPECT_NEAR(cost.ops[kOpDenseMlp].time_s, 41'889'220'608.0 / (3.35e12 * c->stack.params.hbm), 1e-12);
}

// TP 2 on a switch: 2 all-reduces per layer of tokens x h x 2 B, ring cost
// 2 (n-1)/n x size / bandwidth = size / 100 GB/s.
TEST(StepModelTest, TensorParallelAllReduceOnASwitch) {
  const StepModel m(testing::TinyConfig(/*tp=*/2));
  BatchShape s;
  for (int i = 0; i < 64; ++i) s.AddDecode(99, 1, 0);
  const StepCost cost = m.Cost(s);
  const double size = 64.0 * 1024 * 2;
  EXPECT_NEAR(cost.ops[kOpAllReduce].time_s, 4 * size / 100e9, 1e-15);
}

TEST(StepModelTest, SlidingWindowCapsKeys) {
  BatchShape s;
  s.AddDecode(1000, 1, 128);
  EXPECT_DOUBLE_EQ(s.decode_keys_full, 1001.0);
  EXPECT_DOUBLE_EQ(s.decode_keys_swa, 128.0);
  BatchShape p;
  p.AddPrefill(0, 256, 128, true);
  // Queries 1..128 see i keys, queries 129..256 see 128: 128*129/2 + 128*128.
  EXPECT_DOUBLE_EQ(p.prefill_pairs_swa, 128.0 * 129 / 2 + 128.0 * 128);
}

// More bandwidth, more FLOPs or more GPUs never make a step slower.
TEST(StepModelTest, MonotoneInBandwidthFlopsAndGpus) {
  BatchShape mixed;
  for (int i = 0; i < 48; ++i) mixed.AddDecode(500 + 10 * i, 1, 0);
  mixed.AddPrefill(0, 1500, 0, true);
  BatchShape decode;
  for (int i = 0; i < 8; ++i) decode.AddDecode(2000, 1, 0);
  for (const BatchShape* shape : {&mixed, &decode}) {
    double last = 1e9;
    for (double bw : {0.5, 1.0, 2.0, 4.0, 8.0}) {
      SimConfig c = testing::TinyConfig();
      c.hardware.hbm_tbps = bw;
      const double t = StepModel(c).Cost(*shape).time_s;
      EXPECT_LE(t, last);
      last = t;
    }
    last = 1e9;
    for (double tf : {25.0, 50.0, 100.0, 400.0, 1600.0}) {
      SimConfig c = testing::TinyConfig();
      c.hardware.bf16_tflops = tf;
      const double t = StepModel(c).Cost(*shape).time_s;
      EXPECT_LE(t, last);
      last = t;
    }
    last = 1e9;
    for (int dp : {1, 2, 4, 8}) {
      const double t = StepModel(testing::TinyConfig(1, dp)).Cost(*shape).time_s;
      EXPECT_LE(t, last) << "dp " << dp;
      last = t;
    }
  }
}

TEST(StepModelTest, EmptyStepCostsNothing) {
  const StepModel m(testing::TinyConfig());
  EXPECT_EQ(m.Cost(BatchShape{}).ns(), 0);
}

}  // namespace
}  // namespace frontier::sim

namespace frontier::sim {
namespace {

double StepSeconds(const std::string& model, const std::string& hw, int tp, const BatchShape& shape,
                   double link_scale = 1.0, bool zero_latency = false) {
  SimSpec spec;
  spec.model = model;
  spec.hardware = hw;
  spec.tp = tp;
  spec.precision = "fp8";
  Result<SimConfig> c = ResolveSimConfig(spec);
  if (!c.ok()) return -1;
  c->hardware.link_gbps *= link_scale;
  // The catalog's hardware with ideal kernels: these tests are about topology.
  c->stack.params = testing::IdealParams();
  if (!zero_latency) c->stack.params.allreduce_us = 10;
  return StepModel(*c).Cost(shape).time_s;
}

std::vector<BatchShape> Shapes() {
  std::vector<BatchShape> shapes;
  for (int batch : {1, 64, 512}) {
    BatchShape b;
    for (int i = 0; i < batch; ++i) b.AddDecode(1000, 1, 0);
    shapes.push_back(b);
  }
  BatchShape p;
  p.AddPrefill(0, 4096, 0, true);
  shapes.push_back(p);
  return shapes;
}

// Behind an NVLink switch more tensor-parallel GPUs never make a step slower
// when collectives cost only their bandwidth (all-reduce latency 0).
TEST(StepModelCatalogTest, MoreGpusNeverSlowerBehindASwitch) {
  for (const char* hw : {"h100", "h200", "b200", "gb200"}) {
    for (const char* model : {"llama-3.1-8b", "llama-3.1-70b", "qwen3-235b-a22b"}) {
      for (const BatchShape& shape : Shapes()) {
        double last = -1;
        for (int tp : {1, 2, 4, 8}) {
          const double t = StepSeconds(model, hw, tp, shape, 1.0, /*zero_latency=*/true);
          if (t < 0) continue;  // does not fit at this TP
          if (last > 0) {
            EXPECT_LE(t, last) << hw << " " << model << " tp " << tp;
          }
          last = t;
        }
      }
    }
  }
}

// With the all-reduce's latency, TP stops paying for a small model at batch 1:
// Llama 3.1 8B FP8 on B200 halves its weight reads at TP2 (about 0.5 ms) but
// adds 64 all-reduces of 12 us each (0.77 ms), so TP2 is slower than TP1,
// while for Llama 3.1 70B the weight reads saved dominate.
TEST(StepModelCatalogTest, AllReduceLatencyCanOutweighTensorParallelism) {
  const BatchShape one = Shapes().front();
  auto seconds = [&](const char* model, int tp) {
    SimSpec spec;
    spec.model = model;
    spec.hardware = "b200";
    spec.tp = tp;
    spec.precision = "fp8";
    Result<SimConfig> c = ResolveSimConfig(spec);
    EXPECT_TRUE(c.ok());
    c->stack.params = testing::IdealParams();
    c->stack.params.allreduce_us = 12;
    return StepModel(*c).Cost(one).time_s;
  };
  EXPECT_GT(seconds("llama-3.1-8b", 2), seconds("llama-3.1-8b", 1));
  EXPECT_LT(seconds("llama-3.1-70b", 2), seconds("llama-3.1-70b", 1));
}

// On AMD's full mesh a TP2 pair talks over one of the seven links: a long
// prefill is slower at TP2 than at TP1 (the all-reduces cost more than the
// halved GEMMs save), while from TP2 on every doubling adds links and helps.
TEST(StepModelCatalogTest, FullMeshPairUsesOneLink) {
  const BatchShape prefill = Shapes().back();
  EXPECT_GT(StepSeconds("llama-3.1-70b", "mi300x", 2, prefill), StepSeconds("llama-3.1-70b", "mi300x", 1, prefill));
  EXPECT_LT(StepSeconds("llama-3.1-70b", "h200", 2, prefill), StepSeconds("llama-3.1-70b", "h200", 1, prefill));
  for (const char* hw : {"mi300x", "mi325x", "mi355x"}) {
    for (const BatchShape& shape : Shapes()) {
      double last = -1;
      for (int tp : {2, 4, 8}) {
        const double t = StepSeconds("llama-3.1-70b", hw, tp, shape);
        if (last > 0) {
          EXPECT_LE(t, last) << hw << " tp " << tp;
        }
        last = t;
      }
    }
  }
}

// More link bandwidth never makes a step slower.
TEST(StepModelCatalogTest, MoreLinkBandwidthNeverSlower) {
  for (const char* hw : {"h100", "mi300x"}) {
    for (const BatchShape& shape : Shapes()) {
      double last = 1e9;
      for (double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        const double t = StepSeconds("llama-3.1-70b", hw, 8, shape, scale);
        EXPECT_LE(t, last) << hw << " link x" << scale;
        last = t;
      }
    }
  }
}

}  // namespace
}  // namespace frontier::sim
