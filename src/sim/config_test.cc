#include "sim/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
      {"llama-3.1-405b", 405.9, 405.9, 0.01}, {"llama-2-70b", 69.0, 69.0, 0.01},
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
  EXPECT_EQ(oss->expert_precision, Precision::kFp4);
  EXPECT_EQ(oss->precision, Precision::kBf16);
}

// Llama 3.1 70B in BF16 on 8 x H100 at TP 8: weights (70.55B params, BF16) are
// 141.1 GB, 17.64 GB per GPU; the KV cache holds 2 x 8 heads x 128 x 80 layers
// x 2 B = 327,680 B (320 KiB) per token, 40,960 B on each of the 8 GPUs.
TEST(ConfigTest, WeightFootprintAndKvCapacityOfLlama70B) {
  SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h100";
  spec.tp = 8;
  spec.precision = "bf16";
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
  EXPECT_EQ(ListHardware().size(), 7u);
}

}  // namespace
}  // namespace frontier::sim
