#include "sim/engine/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "util/scratch.h"

namespace frontier::sim {
namespace {

using ::testing::HasSubstr;

TEST(ModelCatalogTest, ParameterCountsMatchPublishedSizes) {
  struct Case {
    const char* name;
    double total_b, active_b, tolerance;
  };
  // Published sizes: Llama 3.1 model cards (8.03B, 70.6B, 405B), Llama 2 70B,
  // DeepSeek-V3/R1 (671B total, 37B active), Qwen3-235B-A22B (235B, 22B),
  // gpt-oss-120b (116.8B total, 5.1B active).
  const Case cases[] = {
      {"llama-3.1-8b", 8.03, 8.03, 0.01},     {"llama-3.1-70b", 70.6, 70.6, 0.01},
      {"llama-3.1-405b", 405.9, 405.9, 0.01}, {"llama-3.1-405b-fp8", 405.9, 405.9, 0.01},
      {"llama-2-70b", 69.0, 69.0, 0.01},
      {"deepseek-r1", 671, 37, 0.03},         {"qwen3-235b-a22b", 235, 22, 0.03},
      {"gpt-oss-120b", 116.8, 5.1, 0.03},
  };
  for (const auto& c : cases) {
    Result<ModelSpec> m = LoadModel(c.name);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_NEAR(m->TotalParams() / 1e9, c.total_b, c.total_b * c.tolerance) << c.name;
    // "Active" as published counts the matmuls a token runs (the input embedding is a lookup).
    EXPECT_NEAR((m->ActiveParams() - m->EmbeddingParams()) / 1e9, c.active_b,
                c.active_b * c.tolerance + (m->moe() ? 0 : m->EmbeddingParams() / 1e9))
        << c.name;
  }
}

TEST(ModelCatalogTest, ShapesOfTheSpecialModels) {
  Result<ModelSpec> ds = LoadModel("deepseek-r1");
  ASSERT_TRUE(ds.ok());
  EXPECT_TRUE(ds->mla());
  EXPECT_EQ(ds->experts, 256);
  EXPECT_EQ(ds->experts_per_token, 8);
  EXPECT_EQ(ds->shared_experts, 1);
  EXPECT_EQ(ds->dense_layers, 3);
  EXPECT_EQ(ds->mtp_layers, 1);
  EXPECT_EQ(ds->precision, Precision::kFp8);
  EXPECT_DOUBLE_EQ(ds->KvElementsPerTokenLayer(), 576.0);  // latent 512 + RoPE 64
  Result<ModelSpec> oss = LoadModel("gpt-oss-120b");
  ASSERT_TRUE(oss.ok());
  EXPECT_EQ(oss->sliding_layers, 18);
  EXPECT_EQ(oss->sliding_window, 128);
  EXPECT_EQ(oss->ffn_precision, Precision::kFp4);
  EXPECT_EQ(oss->precision, Precision::kBf16);
}

// Llama 3.1 70B in BF16 on 8 x H100 at TP 8: weights (70.55B params, BF16) are
// 141.1 GB, 17.64 GB per GPU; the KV cache holds 2 x 8 heads x 128 x 80 layers
// x 2 B = 327,680 B (320 KiB) per token, 40,960 B on each of the 8 GPUs.
SimSpec Llama70bBf16OnH100Tp8() {
  SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h100";
  spec.tp = 8;
  spec.precision = "bf16";
  return spec;
}

TEST(ConfigTest, WeightFootprintAndKvCapacityOfLlama70B) {
  SimSpec spec = Llama70bBf16OnH100Tp8();
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NEAR(c->memory.weights, 17'638'096'896.0, 1.0);
  EXPECT_DOUBLE_EQ(c->memory.kv_bytes_per_token, 40'960.0);
  EXPECT_EQ(c->kv_precision, Precision::kBf16);
  // Capacity: what is left of 90% of 80 GiB (the vendors' gigabytes are
  // binary: 85,899,345,920 bytes), in 40,960-byte tokens.
  const double left = 85'899'345'920.0 * c->stack.gpu_memory_utilization - c->memory.weights - c->memory.activations -
                      c->memory.runtime_reserve;
  EXPECT_EQ(c->memory.kv_capacity_tokens, static_cast<int64_t>(left / 40'960.0));
  EXPECT_GT(c->memory.kv_capacity_tokens, 1'000'000);  // ~1.2M tokens: 45+ GB free per GPU

  spec.precision = "fp8";  // half the weights, FP8 KV cache by default
  Result<SimConfig> f = ResolveSimConfig(spec);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kv_precision, Precision::kFp8);
  EXPECT_DOUBLE_EQ(f->memory.kv_bytes_per_token, 20'480.0);
  EXPECT_LT(f->memory.weights, c->memory.weights * 0.52);
}

// The runtime reserve is a stack parameter (memory.runtime_reserve_gb) that
// sets the memory plan: WithStackParams plans it again, 4 GB more reserve
// being 4e9 bytes less KV cache on each GPU (4e9 / 40,960 = 97,656 tokens
// fewer: at TP 8 each GPU holds its share of every token), while a parameter of the step costs leaves
// the plan as it was; a reserve that leaves no cache fails as a deployment
// that does not fit.
TEST(ConfigTest, TheRuntimeReserveParameterReplansMemory) {
  Result<SimConfig> c = ResolveSimConfig(Llama70bBf16OnH100Tp8());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  StackParams p = c->stack.params;
  p.runtime_reserve_gb += 4;
  Result<SimConfig> more = WithStackParams(*c, p);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_DOUBLE_EQ(more->memory.runtime_reserve, c->memory.runtime_reserve + 4e9);
  EXPECT_NEAR(more->memory.kv, c->memory.kv - 4e9, 1e-3);
  EXPECT_NEAR(static_cast<double>(c->memory.kv_capacity_tokens - more->memory.kv_capacity_tokens), 97'656, 1);
  EXPECT_EQ(more->stack.params, p);
  StackParams q = c->stack.params;
  q.kernel_us += 5;
  Result<SimConfig> same = WithStackParams(*c, q);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->memory.kv_capacity_tokens, c->memory.kv_capacity_tokens);
  EXPECT_EQ(same->stack.params.kernel_us, q.kernel_us);
  p.runtime_reserve_gb = 80;
  Result<SimConfig> none = WithStackParams(*c, p);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("runtime reserve"), std::string::npos) << none.status().message();
}

// Meta's FP8 Llama 3.1 405B (The Llama 3 Herd of Models, arXiv:2407.21783,
// section 6.2): FP8 feed-forward layers but the first and last, BF16
// attention, embeddings and LM head. At TP 8, per GPU:
//   FFN       3 x 16384 x 53248 = 2,617,245,696 params a layer:
//             (124 x 1 B + 2 x 2 B) x 2,617,245,696 / 8 = 41,875,931,136 B
//   attention 126 x (2 x 16384^2 + 2 x 16384 x 1024) = 71,873,593,344 params
//             x 2 B / 8 = 17,968,398,336 B
//   embedding and LM head 2 x 128256 x 16384 x 2 B / 8 = 1,050,673,152 B
//   in all 60,895,002,624 B = 56.71 GiB. vLLM logs "Loading model weights
//   took 56.7677 GB" (GiB) per H100 at TP 8 (dstackai/benchmarks,
//   comparison/h100sxm5_vs_mi300x/raw_data/gpu-usage.md): 0.1 % more, the
//   norms and FP8 scales left out.
TEST(ConfigTest, Llama405bFp8KeepsAttentionInBf16) {
  SimSpec spec;
  spec.model = "meta-llama/Llama-3.1-405B-Instruct-FP8";
  spec.hardware = "h100";
  spec.tp = 8;
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->model.name, "llama-3.1-405b-fp8");
  EXPECT_EQ(c->precision, Precision::kBf16);
  EXPECT_EQ(c->ffn_precision, Precision::kFp8);
  EXPECT_EQ(c->model.ffn_unquantized_layers, 2);
  EXPECT_NEAR(c->memory.weights, 60'895'002'624.0, 1.0);
  EXPECT_NEAR(c->memory.weights / (1024.0 * 1024 * 1024), 56.7677, 56.7677 * 0.001);
  // The KV cache follows the BF16 activations: 2 x 8 x 128 x 2 B x 126 layers / 8.
  EXPECT_EQ(c->kv_precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(c->memory.kv_bytes_per_token, 64'512.0);
  const auto settings = c->EffectiveSettings();
  EXPECT_EQ(settings.at("precision"), "bf16");
  EXPECT_EQ(settings.at("ffn_precision"), "fp8");
  EXPECT_EQ(settings.at("ffn_unquantized_layers"), "2");
  EXPECT_EQ(settings.count("expert_precision"), 0u);

  // --precision sets every weight: all FP8 but the BF16 embeddings,
  //   (126 x 2,617,245,696 + 71,873,593,344) x 1 B / 8 + 1,050,673,152 = 51,256,492,032 B,
  // with an FP8 KV cache; all BF16 is the BF16 release's (which does not fit).
  spec.precision = "fp8";
  Result<SimConfig> f = ResolveSimConfig(spec);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_NEAR(f->memory.weights, 51'256'492'032.0, 1.0);
  EXPECT_EQ(f->ffn_precision, Precision::kFp8);
  EXPECT_EQ(f->kv_precision, Precision::kFp8);
  EXPECT_EQ(f->EffectiveSettings().count("ffn_unquantized_layers"), 0u);
  spec.precision = "bf16";
  Result<SimConfig> b = ResolveSimConfig(spec);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("101.5 GB of weights"));  // as llama-3.1-405b's
}

// A dense model's MLP follows the feed-forward format; a Hugging Face
// config of Meta's FP8 kind (fbgemm_fp8) reads as FP8 FFNs, BF16 attention.
TEST(ConfigTest, DenseMlpFollowsTheFeedForwardFormat) {
  Result<ModelSpec> m = ParseHfConfig(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "num_key_value_heads": 8, "vocab_size": 128256, "intermediate_size": 14336,
      "quantization_config": {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0}})",
                                      "fbgemm.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->precision, Precision::kBf16);
  EXPECT_EQ(m->ffn_precision, Precision::kFp8);
}

// Catalog keys: ffn_precision, its older name expert_precision, and the
// count of layers whose MLP stays unquantized; bad values name the key.
TEST(ConfigTest, CatalogFeedForwardKeys) {
  testing_util::ScratchDir tmp("ffn_catalog");  // removed at the end, also when an assertion fails
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/models");
  const std::string shape = R"("hf_config": {"hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
      "num_key_value_heads": 8, "vocab_size": 1000, "intermediate_size": 4096})";
  auto load = [&](const std::string& keys) {
    std::ofstream(dir + "/models/m.json") << "{\"name\": \"m\", " << keys << shape << "}";
    return LoadModel(dir + "/models/m.json");
  };
  Result<ModelSpec> m = load(R"("precision": "bf16", "ffn_precision": "fp8", "ffn_unquantized_layers": 2, )");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->ffn_precision, Precision::kFp8);
  EXPECT_EQ(m->ffn_unquantized_layers, 2);
  m = load(R"("precision": "bf16", "expert_precision": "fp4", )");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->ffn_precision, Precision::kFp4);
  m = load(R"("precision": "fp8", )");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->ffn_precision, Precision::kFp8);  // follows precision unless given
  m = load(R"("ffn_precision": "fp8", "expert_precision": "fp8", )");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("not both"));
  m = load(R"("ffn_precision": "int3", )");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("ffn_precision: unknown precision 'int3'"));
  m = load(R"("ffn_precision": 8, )");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("ffn_precision must be a string"));
  for (const char* bad : {"5", "-1", "1.5", "\"2\""}) {
    m = load(std::string("\"ffn_unquantized_layers\": ") + bad + ", ");
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_THAT(m.status().message(), HasSubstr("ffn_unquantized_layers must be an integer in [0, 4]")) << bad;
  }
}

// Peak activations by hand (config.cc lists the terms), BF16 = 2 bytes, FP32
// logits = 4 bytes, 256 sampling sequences, TP 8 throughout. Per token, two
// hidden vectors (the residual stream and the block's input) stay live, and
// each block adds the larger of its two phases.
//
// Llama 3.1 70B (hidden 8,192; 64 heads, 8 KV heads of 128; intermediate
// 28,672; vocabulary 128,256) at 8,192 tokens, per token:
//   residual and input 2 x 8,192 x 2                            = 32,768 B
//   attention max((8 + 1 + 1) x 128 + 8 x 128, 8 x 128 + 8,192) x 2 = 18,432 B
//   dense MLP max(3 x 3,584, 3,584 + 8,192) x 2                 = 23,552 B (the larger block)
// 8,192 x (32,768 + 23,552) = 461,373,440 B, + logits 256 x 128,256 / 8 x 4 =
// 16,416,768 B: 477,790,208 B.
// An out-of-place all-reduce adds a hidden vector to each block's second phase:
// the MLP's becomes (3,584 + 2 x 8,192) x 2 = 39,936 B, so 8,192 x (32,768 +
// 39,936) + 16,416,768 = 612,007,936 B; at TP 1 there is no all-reduce.
TEST(ConfigTest, PeakActivationsOfLlama70BAt8192Tokens) {
  Result<ModelSpec> m = LoadModel("llama-3.1-70b");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 8192, 256), 477'790'208.0);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 8192, 256, {.allreduce_out_of_place = true}), 612'007'936.0);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 1, 1, 8192, 256, {.allreduce_out_of_place = true}),
                   PeakActivationBytes(*m, 1, 1, 8192, 256));

  // The memory plan takes its step from max_num_batched_tokens and max_num_seqs.
  SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h100";
  spec.tp = 8;
  spec.precision = "bf16";
  spec.max_num_batched_tokens = 8192;
  spec.max_num_seqs = 256;
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->memory.activations, 477'790'208.0);
}

// Llama 3.1 405B (hidden 16,384; 128 heads, 8 KV heads of 128; intermediate
// 53,248) at 91,680 tokens, the whole-prompt budget of vLLM's V0 engine at
// max_model_len 91,680. Per token:
//   residual and input 2 x 16,384 x 2                               = 65,536 B
//   attention max((16 + 1 + 1) x 128 + 16 x 128, 16 x 128 + 16,384) x 2 = 36,864 B
//   dense MLP max(3 x 6,656, 6,656 + 16,384) x 2                    = 46,080 B (the larger block)
// 91,680 x 111,616 = 10,232,954,880 B, + logits 16,416,768 B: 10,249,371,648 B
// (the previous estimate, 16 hidden vectors + 3 x the MLP width, asked 51.7 GB).
TEST(ConfigTest, PeakActivationsOfLlama405BAtAWholePromptBudget) {
  Result<ModelSpec> m = LoadModel("llama-3.1-405b");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 91'680, 256), 10'249'371'648.0);
}

// DeepSeek-R1 (hidden 7,168; 128 MLA heads, qk 128 + 64, v 128; 3 dense
// layers of 18,432; 256 experts of 2,048, top 8, 1 shared; vocabulary
// 129,280). Per token:
//   residual and input 2 x 7,168 x 2                           = 28,672 B
//   MLA attention, all live at the output projection:
//     latents 2 x 1,536 + (512 + 64) + 512                      = 4,160
//     expanded 16 x (192 q + 192 k + 192 padded v + (128 + 128) kv_b
//       + 128 out)                                               = 15,360
//     projection output                                          = 7,168
//     (4,160 + 15,360 + 7,168) x 2                               = 53,376 B
//   dense MLP max(3 x 2,304, 2,304 + 7,168) x 2                = 18,944 B
//   MoE, per chunk token: 8 x (3 x 2,048 / 8 + 7,168) x 2      = 126,976 B
//   MoE output and shared expert, every token:
//     (7,168 + 3 x 2,048 / 8) x 2                              = 15,872 B
// logits 256 x 129,280 / 8 x 4 = 16,547,840 B.
// At 163,840 tokens (max_model_len, whole prompts) the MoE caches stop at
// 32,768 tokens: 32,768 x 126,976 + 163,840 x 15,872 = 6,761,218,048 B, under
// attention's 163,840 x 53,376 = 8,745,123,840 (the dense MLP: 3,103,784,960);
// with the residual's 4,697,620,480: 13,459,292,160 B (unchunked the MoE
// caches alone would be 20.8 GB).
// vLLM 0.7's V0 engine adds an out-of-place all-reduce and the MLA layer's
// output buffer, two more hidden vectors in attention (82,048 B per token)
// and one in the MoE (30,208 B): 163,840 x 82,048 = 13,442,744,320 against
// the MoE's 32,768 x 126,976 + 163,840 x 30,208 = 9,110,028,288, so
// 4,697,620,480 + 13,442,744,320 + 16,547,840 = 18,156,912,640 B.
// At 8,192 tokens the chunk does not bind: 8,192 x (28,672 + 126,976 + 15,872)
// + logits = 1,421,639,680 B. Under EP 8 the experts are whole (N = 2,048):
// 8 x (3 x 2,048 + 7,168) x 2 = 212,992 B per token instead of 126,976:
// 8,192 x (28,672 + 212,992 + 15,872) + logits = 2,126,282,752 B.
TEST(ConfigTest, PeakActivationsOfDeepSeekR1ChunkTheMoe) {
  Result<ModelSpec> m = LoadModel("deepseek-r1");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 163'840, 256), 13'459'292'160.0);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 163'840, 256, {.allreduce_out_of_place = true, .mla_output_buffer = true}),
                   18'156'912'640.0);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 1, 8'192, 256), 1'421'639'680.0);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(*m, 8, 8, 8'192, 256), 2'126'282'752.0);
}

// vLLM's V0 MLA path in early 2025 (stack fields, docs/simulate.md "GPU
// memory"), for DeepSeek-R1 FP8 at TP 8 (16 local heads), by hand:
//   absorbed decode matrices per layer, FP8: W_UQ.W_UK 1,536 x 16 x 512 =
//   12,582,912 B and W_UV.W_O 16 x 512 x 7,168 = 58,720,256 B; the rope part
//   of W_UQ in BF16, 1,536 x 16 x 64 x 2 = 3,145,728 B; the dequantized
//   kv_b in BF16, 512 x 16 x (128 + 128) x 2 = 4,194,304 B; 78,643,200 B x 61
//   layers = 4,797,235,200 B. With BF16 weights the two products are BF16 and
//   kv_b is the checkpoint's own: (71,303,168 x 2 + 3,145,728) x 61 =
//   8,890,875,904 B. A model without MLA keeps none.
//   KV entries padded to 256 bytes: 576 x 2 = 1,152 B per layer -> 1,280 B,
//   61 x 1,280 = 78,080 B per token (70,272 unpadded).
TEST(ConfigTest, VllmV0MlaMemory) {
  Result<ModelSpec> r1 = LoadModel("deepseek-r1");
  ASSERT_TRUE(r1.ok());
  EXPECT_DOUBLE_EQ(AbsorbedMlaWeightBytes(*r1, 8, Precision::kFp8), 4'797'235'200.0);
  EXPECT_DOUBLE_EQ(AbsorbedMlaWeightBytes(*r1, 8, Precision::kBf16), 8'890'875'904.0);
  Result<ModelSpec> dense = LoadModel("llama-3.1-70b");
  ASSERT_TRUE(dense.ok());
  EXPECT_DOUBLE_EQ(AbsorbedMlaWeightBytes(*dense, 8, Precision::kFp8), 0.0);

  SimSpec spec;
  spec.model = "deepseek-r1";
  spec.hardware = "h200";
  spec.tp = 8;
  spec.stack = "vllm-cuda@0.6.3";  // none of the four traits
  spec.kv_precision = "bf16";
  spec.max_num_batched_tokens = 163'840;
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->memory.kv_bytes_per_token, 70'272.0);
  SimConfig v0 = *c;
  v0.stack.mla_kv_align_bytes = 256;
  v0.stack.mla_absorbed_weights = true;
  v0.stack.allreduce_out_of_place = true;
  v0.stack.mla_output_buffer = true;
  const MemoryPlan p = PlanMemory(v0);
  EXPECT_DOUBLE_EQ(p.kv_bytes_per_token, 78'080.0);
  EXPECT_NEAR(p.weights - c->memory.weights, 4'797'235'200.0, 1.0);
  EXPECT_NEAR(p.activations - c->memory.activations, 18'156'912'640.0 - 13'459'292'160.0, 1.0);
  EXPECT_NEAR(p.kv, c->memory.kv - 4'797'235'200.0 - (18'156'912'640.0 - 13'459'292'160.0), 1.0);
  EXPECT_EQ(p.kv_capacity_tokens, static_cast<int64_t>(p.kv / 78'080.0));
}

TEST(ConfigTest, UnknownNamesListTheKnownOnes) {
  SimSpec spec;
  spec.model = "llama-9";
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(c.status().message(), HasSubstr("--model"));
  EXPECT_THAT(c.status().message(), HasSubstr("llama-3.1-70b"));
  EXPECT_THAT(c.status().message(), HasSubstr("deepseek-r1"));
  spec.model = "llama-3.1-8b";
  spec.hardware = "tpu-v9";
  c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--hardware"));
  EXPECT_THAT(c.status().message(), HasSubstr("mi355x"));
  EXPECT_THAT(c.status().message(), HasSubstr("h200"));
}

TEST(ConfigTest, DoesNotFitSaysByHowMuch) {
  SimSpec spec;
  spec.model = "llama-3.1-405b";
  spec.hardware = "h100";
  spec.tp = 8;
  spec.precision = "bf16";  // 811 GB of weights on 8 x 80 GB
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("does not fit"));
  EXPECT_THAT(c.status().message(), HasSubstr("short by"));
  EXPECT_THAT(c.status().message(), HasSubstr("101.5 GB of weights"));
}

TEST(ConfigTest, ImpossibleParallelismNamesTheFlag) {
  SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h200";
  spec.tp = 3;
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--tp 3"));
  spec.tp = 16;  // divides nothing wrong, but exceeds the 8-GPU NVLink domain
  c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("scale-up domain"));

  spec.model = "deepseek-r1";
  spec.tp = 8;
  spec.ep = 512;
  c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--ep 512 exceeds the 256 experts"));
  spec.ep = 8;
  c = ResolveSimConfig(spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  spec.model = "llama-3.1-8b";
  spec.ep = 8;
  c = ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--ep"));
}

TEST(ConfigTest, MalformedConfigJsonNamesTheMissingField) {
  Result<ModelSpec> m = ParseHfConfig(R"({"hidden_size": 4096, "num_hidden_layers": 32, "vocab_size": 32000,
                                          "intermediate_size": 11008})",
                                      "my/config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("my/config.json"));
  EXPECT_THAT(m.status().message(), HasSubstr("num_attention_heads"));
  m = ParseHfConfig(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                        "vocab_size": 32000, "num_local_experts": 8, "intermediate_size": 14336})",
                    "moe.json");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("num_experts_per_tok"));
  m = ParseHfConfig("{not json", "bad.json");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("bad.json"));
}

TEST(ConfigTest, ModelFromAConfigJsonPath) {
  testing_util::ScratchDir tmp("sim_config");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("config.json");
  {
    std::ofstream out(path);
    out << R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
               "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 14336,
               "num_local_experts": 8, "num_experts_per_tok": 2, "max_position_embeddings": 32768})";
  }
  SimSpec spec;
  spec.model = path;
  spec.hardware = "mi300x";
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->model.experts, 8);
  EXPECT_EQ(c->stack.vendor, "amd");  // the vendor's default stack
  EXPECT_NEAR(c->model.TotalParams() / 1e9, 46.4, 0.5);  // Mixtral-8x7B's shape
}

TEST(HardwareTest, FullMeshGivesAPairOneLink) {
  Result<Hardware> amd = LoadHardware("mi300x");
  Result<Hardware> nv = LoadHardware("h100");
  ASSERT_TRUE(amd.ok() && nv.ok());
  EXPECT_DOUBLE_EQ(amd->CollectiveGBps(2), 64.0);
  EXPECT_DOUBLE_EQ(amd->CollectiveGBps(8), 7 * 64.0);
  EXPECT_DOUBLE_EQ(nv->CollectiveGBps(2), 450.0);
  EXPECT_DOUBLE_EQ(nv->CollectiveGBps(8), 450.0);
  Precision eff;
  EXPECT_DOUBLE_EQ(nv->PeakTflops(Precision::kFp4, &eff), nv->fp8_tflops);  // no FP4 on Hopper
  EXPECT_EQ(eff, Precision::kFp8);
  for (const auto& name : ListHardware()) {
    Result<Hardware> h = LoadHardware(name);
    ASSERT_TRUE(h.ok()) << name;
    EXPECT_GT(h->tdp_w, 0) << name;
    EXPECT_GT(h->price.neocloud, 0) << name;
  }
  EXPECT_EQ(ListHardware().size(), 11u);
}

// The H100 and H200 in their other forms: the NVL cards bridge in pairs (H100)
// or fours (H200) at 84 % of the SXM's dense tensor peak; the GH200's GPU has
// the SXM's peak and 144 GB of HBM3e.
TEST(HardwareTest, HopperVariantsKeepTheirDatasheetRatios) {
  Result<Hardware> sxm = LoadHardware("h100-sxm");
  Result<Hardware> h100nvl = LoadHardware("h100-nvl");
  Result<Hardware> h200 = LoadHardware("h200");
  Result<Hardware> h200nvl = LoadHardware("h200-nvl");
  Result<Hardware> gh200 = LoadHardware("gh200");
  ASSERT_TRUE(sxm.ok() && h100nvl.ok() && h200.ok() && h200nvl.ok() && gh200.ok());
  EXPECT_NEAR(h100nvl->bf16_tflops / sxm->bf16_tflops, 1671.0 / 1979.0, 1e-3);
  EXPECT_NEAR(h200nvl->fp8_tflops / h200->fp8_tflops, 3341.0 / 3958.0, 1e-3);
  EXPECT_DOUBLE_EQ(h200nvl->hbm_tbps, h200->hbm_tbps);
  EXPECT_DOUBLE_EQ(h100nvl->hbm_tbps, 3.9);
  EXPECT_DOUBLE_EQ(gh200->bf16_tflops, sxm->bf16_tflops);
  EXPECT_DOUBLE_EQ(gh200->hbm_gb, 144.0);
  EXPECT_DOUBLE_EQ(h100nvl->CollectiveGBps(2), 300.0);  // one NVLink bridge
  EXPECT_DOUBLE_EQ(h200nvl->CollectiveGBps(4), 3 * 150.0);
  EXPECT_EQ(h100nvl->scale_up_gpus, 2);
  EXPECT_EQ(h200nvl->scale_up_gpus, 4);
}

}  // namespace
}  // namespace frontier::sim
