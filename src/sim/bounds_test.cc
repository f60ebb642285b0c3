// The simulator's inputs from outside (Hugging Face config.json files, the
// hardware and stack catalogs) are range-checked where they are read, and a
// simulation stops at its bounds on requests and memory, saying which.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/engine/hardware.h"
#include "sim/engine/model.h"
#include "sim/engine/stack.h"
#include "sim/engine/step_model.h"
#include "sim/engine/testing.h"
#include "sim/simulate.h"
#include "util/scratch.h"

namespace frontier::sim {
namespace {

using nlohmann::json;

// A small valid Llama-like config with `patch` merged in.
std::string ConfigWith(const std::string& patch) {
  json j = json::parse(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
    "max_position_embeddings": 131072})");
  j.merge_patch(json::parse(patch));
  return j.dump();
}

TEST(HfConfigBounds, SizesOutsideAnyModelAreNamedNotWrapped) {
  ASSERT_TRUE(ParseHfConfig(ConfigWith("{}"), "c.json").ok());
  const std::pair<std::string, std::string> cases[] = {
      // int64 values used to be narrowed to int (1e12 hidden became negative).
      {R"({"hidden_size": 1000000000000})", "c.json: field 'hidden_size' must be an integer in [1, 1000000], got 1000000000000"},
      {R"({"num_hidden_layers": 0})", "c.json: field 'num_hidden_layers' must be an integer in [1, 100000], got 0"},
      {R"({"vocab_size": -1})", "c.json: field 'vocab_size' must be an integer in [1, 100000000], got -1"},
      // A present field of the wrong type used to fall back to the default silently.
      {R"({"num_key_value_heads": "8"})", "c.json: field 'num_key_value_heads' must be an integer in [1, 32], got \"8\""},
      {R"({"num_key_value_heads": 64})", "c.json: field 'num_key_value_heads' must be an integer in [1, 32], got 64"},
      {R"({"intermediate_size": 2.5})", "c.json: field 'intermediate_size' must be an integer in [0, 1000000], got 2.5"},
      {R"({"max_position_embeddings": 1e30})",
       "c.json: field 'max_position_embeddings' must be an integer in [2, 1000000000], got 1e+30"},
      {R"({"num_local_experts": 8, "num_experts_per_tok": 9})",
       "c.json: field 'num_experts_per_tok' must be an integer in [1, 8], got 9"},
      {R"({"sliding_window": 4096, "layer_types": ["sliding_attention", "sliding_attention"], "num_hidden_layers": 1})",
       "c.json: layer_types names 2 sliding-attention layers, more than num_hidden_layers (1)"},
  };
  for (const auto& [patch, message] : cases) {
    auto m = ParseHfConfig(ConfigWith(patch), "c.json");
    ASSERT_FALSE(m.ok()) << patch;
    EXPECT_EQ(m.status().message(), message) << patch;
  }
  EXPECT_EQ(ParseHfConfig(std::string(100000, '['), "deep.json").status().message(),
            "deep.json: nested deeper than 64 levels");
  EXPECT_EQ(ParseHfConfig("[1]", "a.json").status().message(), "a.json: expected a JSON object");
}

TEST(HfConfigBounds, ProductsOfSizesInRangeDoNotOverflow) {
  // Each size is inside its range, but products of two of them passed 2^31 in int arithmetic
  // (found by the hf_config fuzz target): 512 x 128 x (163840 + 128) in the MLA parameters,
  // experts per token x expert width in the activation plan, qk_nope x kv_lora in a decode step.
  auto m = ParseHfConfig(R"({"hidden_size": 7168, "num_hidden_layers": 2, "num_attention_heads": 128,
    "num_key_value_heads": 128, "intermediate_size": 18432, "vocab_size": 129280,
    "max_position_embeddings": 163840, "q_lora_rank": 1536, "kv_lora_rank": 512,
    "qk_nope_head_dim": 163840, "qk_rope_head_dim": 64, "v_head_dim": 128})",
                         "mla.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // q: 7168 x 1536 + 1536 x 128 x 163904; kv: 7168 x 576 + 512 x 128 x 163968; out: 128 x 128 x 7168.
  EXPECT_EQ(m->AttentionParams(), 43103223808.0);

  SimConfig c = testing::TinyConfig();
  auto moe = ParseHfConfig(ConfigWith(R"({"num_hidden_layers": 1, "num_local_experts": 8192,
    "num_experts_per_tok": 4096, "moe_intermediate_size": 1000000})"),
                           "moe.json");
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  c.model = *moe;
  // The widest MLP intermediate is 4096 x 1000000 values per token.
  EXPECT_GE(PlanMemory(c).activations, c.max_num_batched_tokens * 3.0 * 4096e6 * 2.0);

  auto wide = ParseHfConfig(R"({"hidden_size": 1024, "num_hidden_layers": 1, "num_attention_heads": 8,
    "num_key_value_heads": 8, "intermediate_size": 4096, "vocab_size": 1000, "max_position_embeddings": 4096,
    "kv_lora_rank": 1000000, "qk_nope_head_dim": 1000000, "qk_rope_head_dim": 64, "v_head_dim": 128})",
                            "wide.json");
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  c = testing::TinyConfig();
  c.model = *wide;
  BatchShape one;
  one.AddDecode(16, 1, 0);
  // At least the absorbed-attention term: 2 x 1 token x 8 heads x (1e6 x 1e6) x 1 layer.
  EXPECT_GE(StepModel(c).Cost(one).ops[kOpAttnProj].flops, 2.0 * 8 * 1e12);
}

TEST(HfConfigBounds, AnEndlessConfigFileEndsAtTheBound) {
  auto m = LoadModel("/dev/zero");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "/dev/zero: larger than 16 MiB, the bound on model configs and catalog files "
                                  "(docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it");
}

TEST(CatalogBounds, HardwareAndStackNumbersOutsideAnyPhysicalRangeAreNamed) {
  testing_util::ScratchDir tmp("bounds");  // removed at the end, also when an assertion fails
  const json h100 = json::parse(std::ifstream(DefaultDataDir() + "/hardware/h100-sxm.json"));
  const std::pair<std::string, std::string> hw[] = {
      {R"({"tdp_w": -5})", "field 'tdp_w' must be a number in [1, 100000], got -5"},
      {R"({"hbm_gb": 1e300})", "field 'hbm_gb' must be a number in [0.001, 100000], got 1e+300"},
      {R"({"links_per_gpu": 0})", "field 'links_per_gpu' must be a number in [1, 1024], got 0"},
      {R"({"scale_up_gpus": 2.5})", "links_per_gpu and scale_up_gpus must be whole numbers"},
      {R"({"usd_per_gpu_hour": {"neocloud": -1}})", "field 'neocloud' must be a number in [0, 10000], got -1"},
  };
  for (const auto& [patch, message] : hw) {
    json j = h100;
    j.merge_patch(json::parse(patch));
    const std::string path = tmp.Write("hw.json", j.dump());
    auto h = LoadHardwareFile(path);
    ASSERT_FALSE(h.ok()) << patch;
    EXPECT_EQ(h.status().message(), path + ": " + message) << patch;
  }
  const json vllm = json::parse(std::ifstream(DefaultDataDir() + "/stacks/vllm-cuda@0.7.4.json"));
  const std::pair<std::string, std::string> st[] = {
      {R"({"max_num_seqs": 0})", "field 'max_num_seqs' must be a number in [1, 1000000], got 0"},
      {R"({"max_num_batched_tokens": 1e30})", "field 'max_num_batched_tokens' must be a number in [1, 1000000000], got 1e+30"},
      {R"({"parameters": {"memory.runtime_reserve_gb": {"value": -3, "source": "a test"}}})",
       "parameter 'memory.runtime_reserve_gb' = -3 is outside [0, 1000] (GB)"},
      {R"({"runtime_reserve_gb": 3})",
       "field 'runtime_reserve_gb' is now the parameter 'memory.runtime_reserve_gb': move it under 'parameters' as "
       "{\"value\": v, \"source\": \"...\"}"},
      {R"({"mla_kv_align_bytes": 5000})", "field 'mla_kv_align_bytes' must be a number in [0, 4096], got 5000"},
      {R"({"mla_kv_align_bytes": 1.5})", "field 'mla_kv_align_bytes' must be a whole number of bytes, got 1.5"},
      {R"({"mla_absorbed_weights": "yes"})", "field 'mla_absorbed_weights' must be true or false, got \"yes\""},
      {R"({"allreduce_out_of_place": 1})", "field 'allreduce_out_of_place' must be true or false, got 1"},
      {R"({"reserve_to_completion": "always"})", "field 'reserve_to_completion' must be true or false, got \"always\""},
      {R"({"memory_fraction_of": "kv"})",
       "field 'memory_fraction_of' must be \"device\" (vLLM's --gpu-memory-utilization), \"static\" (SGLang's "
       "--mem-fraction-static) or \"free\" (TensorRT-LLM's free_gpu_memory_fraction), got \"kv\""},
      {R"({"memory_fraction_of": 1})", "field 'memory_fraction_of' must be a string: \"device\", \"static\" or \"free\""},
  };
  // A stack file is read inside its data folder (DIR/stacks/NAME@VERSION.json), where its
  // parent would be.
  std::filesystem::create_directories(tmp.dir / "stacks");
  for (const auto& [patch, message] : st) {
    json j = vllm;
    j.merge_patch(json::parse(patch));
    const std::string path = (tmp.dir / "stacks" / "vllm-cuda@0.7.4.json").string();
    std::ofstream(path) << j.dump();
    auto s = LoadStackFile(path);
    ASSERT_FALSE(s.ok()) << patch;
    EXPECT_EQ(s.status().message(), path + ": " + message) << patch;
  }
}

std::vector<workload::RequestSpec> Requests(int n, int32_t in, int32_t out) {
  std::vector<workload::RequestSpec> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = {i, in, out, {}, ""};
  return r;
}

TEST(SimulateBounds, ARunStopsAtItsRequestBoundAndSaysWhen) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.max_concurrency = 4;
  load.duration_s = 1e9;                                  // asks for ever
  load.num_prompts = std::numeric_limits<int64_t>::max();
  SimulateOptions o;
  o.max_requests = 1000;
  auto r = Simulate(c, Requests(10, 32, 8), load, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("the simulation reached its bound of 1000 requests (--max-requests) at "),
            std::string::npos)
      << r.status().message();
  // Without --duration the count is known up front.
  workload::LoadOptions all;
  all.num_prompts = 2000;
  EXPECT_EQ(Simulate(c, Requests(2000, 32, 8), all, o).status().message(),
            "2000 requests exceed the simulation's bound of 1000 (--max-requests); ask for fewer (--num-prompts) "
            "or raise the bound");
}

TEST(SimulateBounds, ARunStopsAtItsMemoryBound) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.max_concurrency = 4;
  load.duration_s = 1e9;
  load.num_prompts = std::numeric_limits<int64_t>::max();
  SimulateOptions o;
  o.max_memory_bytes = 4 << 20;  // 4 MiB: about 5,000 records of 8 output tokens
  auto r = Simulate(c, Requests(10, 32, 8), load, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("request records reached their bound of 4 MiB (--max-memory-mb) after "),
            std::string::npos)
      << r.status().message();
  // Within the bounds the same run completes.
  load.duration_s = 1.0;
  EXPECT_TRUE(Simulate(c, Requests(10, 32, 8), load, o).ok());
}

}  // namespace
}  // namespace frontier::sim
