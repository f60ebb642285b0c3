// The published results in data/validation and the stacks fitted to them:
// the set is what `frontier validate` promises (sources, dates, classes,
// vendors), the fitted stacks reproduce the fit their files record, and the
// leave-one-out errors stay within the bounds docs/simulate.md states.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "sim/engine/config.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"
#include "sim/engine/stack.h"
#include "sim/fit/calibration.h"
#include "sim/fit/validate.h"
#include "sim/fit/validation.h"
#include "sim/simulate.h"
#include "util/scratch.h"

namespace frontier::sim {
namespace {

// The points a stack file's calibration record holds (empty when unfitted).
nlohmann::json RecordedPoints(const Stack& stack) {
  std::ifstream in(stack.file);
  const nlohmann::json j = nlohmann::json::parse(in);
  if (!j.contains("calibration") || !j["calibration"].contains("points")) return nlohmann::json::array();
  return j["calibration"]["points"];
}

TEST(ValidationSetTest, HoldsDatedSourcedResultsOnBothVendorsWithMoE) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  int calibratable = 0, moe = 0;
  std::set<std::string> moe_vendors;
  for (const auto& r : set->results) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_EQ(r.published.size(), 10u) << r.id;
    Result<ModelSpec> m = LoadModel(r.model);
    ASSERT_TRUE(m.ok()) << r.id;
    Result<Stack> s = LoadStack(r.stack);
    ASSERT_TRUE(s.ok()) << r.id << ": " << s.status().ToString();
    if (!r.Calibratable()) {
      // Never fitted: on a validation GPU, or marked held out.
      EXPECT_TRUE(r.held_out || !IsCalibrationGpu(r.hardware)) << r.id;
      continue;
    }
    // The rule of calibration: only the GPUs people own are fitted, of any
    // date: H100, H200 (also as NVL and PCIe cards and the GH200's GPU),
    // MI300X, MI325X.
    static const std::set<std::string> kOwned = {"h100-sxm", "h100-pcie", "h100-nvl", "h200",
                                                 "h200-nvl", "gh200",     "mi300x",   "mi325x"};
    EXPECT_TRUE(kOwned.count(r.hardware)) << r.id;
    ++calibratable;
    if (m->moe()) {
      ++moe;
      moe_vendors.insert(s->vendor);
    }
  }
  EXPECT_GE(calibratable, 20);
  EXPECT_GE(moe, 6);
  EXPECT_EQ(moe_vendors, (std::set<std::string>{"amd", "nvidia"}));
}

// Every fitted stack file records each point's prediction at the fit; a fresh
// prediction of the closed-loop and batch points with the catalogued
// parameters gives the same figure (the replay a fit uses equals a simulation).
TEST(ValidationSetTest, FittedStacksReproduceTheFitTheirFilesRecord) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok());
  int checked = 0;
  for (const Stack& stack : ListStackVersions()) {
    for (const auto& p : RecordedPoints(stack)) {
      const std::string id = p["id"].get<std::string>();
      for (const auto& r : set->results) {
        if (r.id != id || (r.scenario != Scenario::kClosedLoop && r.scenario != Scenario::kBatch)) continue;
        Result<Prediction> pred = Predict(r, *set, ValidationOptions{});
        ASSERT_TRUE(pred.ok()) << id << ": " << pred.status().ToString();
        EXPECT_NEAR(pred->output_tokens_per_s / p["predicted"].get<double>(), 1.0, 0.001) << id;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 20);
}

// Calibrating a fitted file again gives the fit it records: each stack's
// leave-one-out errors, as `frontier validate --refit` computes them, are the
// ones its file holds (a fit starts from the priors, never from the values an
// earlier fit left), each within the stated 25 %, and the refits are refits:
// in every stack some left-out point moves its prediction. (One point may
// not: the refit starts from the full fit too, and where leaving a point out
// moves the optimum less than the fit's tolerance it stays there.) One test
// per stack, so that ctest spreads the refits over the cores. The sanitizer
// build refits only the stacks of at most 8 points fitted to closed loops and
// batches whose fit frees no schedule parameter (a Server point's rate search, or trtllm@0.17's
// runtime-reserve search that simulates every run about 1,300 times, takes
// minutes under ASan); CalibrationTest checks those searches there.
const char* const kFittedStacks[] = {
    "sglang-cuda@0.4.3", "sglang-cuda@0.5.9", "sglang-cuda@0.5.12", "sglang-rocm@0.4.2",
    "sglang-rocm@0.5.9", "sglang-rocm@0.5.12", "trtllm@0.17",       "trtllm@1.3",
    "trtllm@2024.08",    "trtllm@2025.04",    "trtllm@2025.09",     "vllm-cuda@0.6.3",
    "vllm-cuda@0.7.4",   "vllm-rocm@0.4.3",   "vllm-rocm@0.6.4",    "vllm-rocm@0.6.5",
    "vllm-rocm@0.7.3",   "vllm-rocm@2024.10",
};

TEST(StackRefitTest, EveryStackWithARecordIsRefitted) {
  std::set<std::string> with_record;
  for (const Stack& stack : ListStackVersions())
    if (!RecordedPoints(stack).empty()) with_record.insert(stack.id());
  EXPECT_EQ(with_record, std::set<std::string>(std::begin(kFittedStacks), std::end(kFittedStacks)));
}

class StackRefitTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StackRefitTest, RefitGivesTheLeaveOneOutErrorsItsFileRecords) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  Result<Stack> stack = LoadStack(GetParam());
  ASSERT_TRUE(stack.ok()) << stack.status().ToString();
  std::map<std::string, double> recorded;
  for (const auto& p : RecordedPoints(*stack)) recorded[p["id"].get<std::string>()] = p["loo_error"].get<double>();
  ASSERT_GE(recorded.size(), 2u);
#ifdef FRONTIER_SIM_REDUCED
  const bool schedule = std::any_of(stack->free_params.begin(), stack->free_params.end(), [](const std::string& name) {
    const ParamInfo* info = FindParam(name);
    return info != nullptr && info->schedule;
  });
  bool cheap = true;
  for (const auto& r : set->results)
    if (recorded.count(r.id)) cheap = cheap && (r.scenario == Scenario::kClosedLoop || r.scenario == Scenario::kBatch);
  if (schedule || !cheap) GTEST_SKIP() << "a rate or schedule search: refitted in the optimised build";
  // The same code runs on a stack of a few points as on one of many; the
  // larger fits (sglang-rocm@0.5.9's 22 closed loops take minutes under ASan)
  // are left to the optimised build.
  if (recorded.size() > 8) GTEST_SKIP() << recorded.size() << " points: refitted in the optimised build";
#endif
  ValidateOptions options;
  options.only_stack = GetParam();
  options.held_out = false;
  options.refit = true;
  Result<ValidationReport> report = Validate(*set, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->loo_refitted, std::vector<std::string>{GetParam()});
  EXPECT_EQ(report->rows.size(), recorded.size());
  bool moved = false;
  for (const auto& row : report->rows) {
    ASSERT_TRUE(row.loo_error.has_value()) << row.published.id;
    ASSERT_TRUE(recorded.count(row.published.id)) << row.published.id;
    EXPECT_NEAR(*row.loo_error, recorded[row.published.id], 0.001) << row.published.id;
    EXPECT_LE(std::abs(*row.loo_error), 0.25) << row.published.id;
    moved = moved || *row.loo_predicted != row.predicted;
  }
  EXPECT_TRUE(moved) << "no leave-one-out prediction differs from the in-sample one";
}

INSTANTIATE_TEST_SUITE_P(Stacks, StackRefitTest,
                         ::testing::ValuesIn(std::vector<std::string>(std::begin(kFittedStacks), std::end(kFittedStacks))),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// A version whose file leaves a parameter out takes its parent's value, and
// its provenance names the parent; a parameter it sets stays its own, and
// the parent's value becomes the prior calibration regularises toward.
TEST(StackInheritanceTest, AVersionInheritsWhatItsFileLeavesOut) {
  testing_util::ScratchDir tmp("inherit");  // a data folder of two stacks, removed at the end
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/stacks");
  std::ifstream in(DefaultDataDir() + "/stacks/trtllm@2024.08.json");
  nlohmann::json parent = nlohmann::json::parse(in);
  parent["parameters"]["overhead.kernel_us"] = {{"value", 7.5}, {"source", "test: the parent's floor"}};
  parent["parameters"]["overhead.step_us"] = {{"value", 200.0}, {"source", "test: the parent's step"}};
  parent.erase("calibration");
  std::ofstream(dir + "/stacks/trtllm@2024.08.json") << parent.dump(2);
  nlohmann::json child = parent;
  child["version"] = "2025.04";
  child["release_date"] = {{"value", "2025-04-02"}, {"source", "test"}};
  child["inherits"] = "trtllm@2024.08";
  child["parameters"].erase("overhead.kernel_us");
  child["parameters"]["overhead.step_us"] = {{"value", 150.0}, {"source", "test: the child's own step"}};
  std::ofstream(dir + "/stacks/trtllm@2025.04.json") << child.dump(2);

  Result<Stack> s = LoadStack("trtllm@2025.04", dir);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->parent, "trtllm@2024.08");
  EXPECT_DOUBLE_EQ(s->params.kernel_us, 7.5);  // the parent's
  ASSERT_TRUE(s->origins.count("overhead.kernel_us"));
  EXPECT_EQ(s->origins["overhead.kernel_us"].Describe(), "inherited from trtllm@2024.08");
  EXPECT_DOUBLE_EQ(s->params.step_us, 150.0);  // its own
  EXPECT_EQ(s->origins["overhead.step_us"].Describe(), "given");
  EXPECT_EQ(s->origins["overhead.step_us"].source, "test: the child's own step");
  // The parent itself has no parent and sets both.
  Result<Stack> p = LoadStack("trtllm@2024.08", dir);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->parent, "");
  EXPECT_DOUBLE_EQ(p->params.step_us, 200.0);
}

// A record can run the model in its native formats ("precision": "native"),
// cap max_model_len and say the run had no CUDA graphs (enforce_eager, kept
// when the result is re-costed under another stack version); bad values are
// refused naming the field.
TEST(ValidationRecordTest, NativePrecisionMaxModelLenAndEnforceEager) {
  testing_util::ScratchDir tmp("record_fields");  // removed also when an assertion fails
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/validation");
  nlohmann::json record = {{"id", "fp8-405b"}, {"published", "2024-10-01"}, {"source", "test"},
                           {"model", "llama-3.1-405b-fp8"}, {"hardware", "h100"}, {"gpus", 8}, {"tp", 8},
                           {"precision", "native"}, {"stack", "vllm-cuda@0.7.4"},
                           {"max_model_len", {{"value", 8192}, {"source", "test: --max-model-len"}}},
                           {"enforce_eager", true},
                           {"workload", {{"input_len", 128}, {"output_len", 64}, {"num_prompts", 4}}},
                           {"scenario", "batch"}, {"value", 100.0}};
  auto load = [&](const nlohmann::json& r) {
    std::ofstream(dir + "/validation/r.json") << nlohmann::json{{"results", {r}}}.dump(2);
    return LoadValidation(dir);
  };
  Result<ValidationSet> set = load(record);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const PublishedResult& r = set->results.at(0);
  EXPECT_EQ(r.precision, "native");
  EXPECT_EQ(r.max_model_len, 8192);
  EXPECT_TRUE(r.enforce_eager);
  Result<ResultModel> m = ResultModel::Create(r, *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->config().precision, Precision::kBf16);  // the model's own: BF16 attention, FP8 FFN
  EXPECT_EQ(m->config().ffn_precision, Precision::kFp8);
  EXPECT_EQ(m->config().kv_precision, Precision::kBf16);
  EXPECT_EQ(m->config().max_model_len, 8192);
  EXPECT_FALSE(m->config().stack.graphs);
  // Re-costed under another version (which runs graphs), still eager.
  Result<Stack> other = LoadStack("vllm-cuda@0.7.4");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other->graphs);
  m = ResultModel::Create(r, *set, ValidationOptions{}, &*other);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->config().stack.graphs);

  // Without the fields: --precision as given, the model's context, graphs as the stack runs them.
  nlohmann::json plain = record;
  plain.erase("max_model_len");
  plain.erase("enforce_eager");
  plain["precision"] = "fp8";
  set = load(plain);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_FALSE(set->results.at(0).max_model_len.has_value());
  EXPECT_FALSE(set->results.at(0).enforce_eager);
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->config().precision, Precision::kFp8);
  EXPECT_EQ(m->config().ffn_precision, Precision::kFp8);
  EXPECT_EQ(m->config().max_model_len, 131072);
  EXPECT_TRUE(m->config().stack.graphs);

  // The run's prompt scheduling where its launch departs from the stack's:
  // whole prompts in steps of their own, budgeted at max(max_model_len, 2048)
  // (vLLM V0 without chunked prefill), here 8,192; by default the stack's
  // (vllm-cuda@0.7.4 chunks a dense model's prompts, 8,192 tokens a step).
  nlohmann::json whole = record;
  whole["prefill"] = {{"value", "whole-separate"}, {"source", "test: --enable-chunked-prefill false"}};
  whole["max_model_len"] = 20000;
  set = load(whole);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_TRUE(set->results.at(0).prefill.has_value());
  EXPECT_EQ(*set->results.at(0).prefill, PrefillMode::kWholeSeparate);
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->config().chunked_prefill);
  EXPECT_FALSE(m->config().mixed_prefill);
  EXPECT_EQ(m->config().max_num_batched_tokens, 20000);
  set = load(plain);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->config().chunked_prefill);
  EXPECT_TRUE(m->config().mixed_prefill);
  EXPECT_EQ(m->config().max_num_batched_tokens, 8192);

  const std::pair<const char*, nlohmann::json> bad[] = {
      {"precision", "int4"}, {"max_model_len", 0}, {"max_model_len", 1.5}, {"max_model_len", "8k"},
      {"enforce_eager", "yes"}, {"enforce_eager", 1}, {"prefill", "whole"}, {"prefill", 1},
      {"prefill", {{"value", 2}, {"source", "x"}}}, {"held_out", "yes"}, {"held_out", {{"value", 1}}},
      {"attention_dp", "true"}};
  for (const auto& [field, value] : bad) {
    nlohmann::json b = record;
    b[field] = value;
    set = load(b);
    ASSERT_FALSE(set.ok()) << field << " " << value.dump();
    EXPECT_NE(set.status().message().find(field), std::string::npos) << set.status().message();
    EXPECT_NE(set.status().message().find("fp8-405b"), std::string::npos) << set.status().message();
  }
  nlohmann::json unknown = record;
  unknown["precision"] = "int4";
  set = load(unknown);
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("\"native\""), std::string::npos) << set.status().message();
  // A max_model_len beyond the model's context fails when the result resolves, naming the flag.
  nlohmann::json longer = record;
  longer["max_model_len"] = 200000;
  set = load(longer);
  ASSERT_TRUE(set.ok());
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--max-model-len 200000"), std::string::npos) << m.status().message();
}

// A record's gpu_memory_utilization is the run's memory fraction, handed to
// the simulated deployment whose stack says what it is a fraction of: SGLang's
// --mem-fraction-static holds weights and KV pool (activations outside it),
// TensorRT-LLM's free_gpu_memory_fraction is of what the weights, the
// profiling pass and the runtime reserve leave. A bad value is refused naming
// the field and the fix.
TEST(ValidationRecordTest, MemoryFractionAsTheRunLaunchedIt) {
  testing_util::ScratchDir tmp("record_memory_fraction");
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/validation");
  nlohmann::json record = {{"id", "dsr1-b200-tp4"}, {"published", "2026-05-22"}, {"source", "test"},
                           {"model", "deepseek-r1"}, {"hardware", "b200"}, {"gpus", 4}, {"tp", 4},
                           {"precision", "native"}, {"stack", "sglang-cuda@0.5.12"},
                           {"gpu_memory_utilization", {{"value", 0.95}, {"source", "test: --mem-fraction-static"}}},
                           {"kv_precision", {{"value", "fp8"}, {"source", "test: --kv-cache-dtype fp8_e4m3"}}},
                           {"workload", {{"input_len", 7373}, {"output_len", 922}, {"num_prompts", 64}}},
                           {"scenario", "closed_loop"}, {"concurrency", 32}, {"value", 900.0}};
  auto load = [&](const nlohmann::json& r) {
    std::ofstream(dir + "/validation/r.json") << nlohmann::json{{"results", {r}}}.dump(2);
    return LoadValidation(dir);
  };
  Result<ValidationSet> set = load(record);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_TRUE(set->results.at(0).gpu_memory_utilization.has_value());
  EXPECT_DOUBLE_EQ(*set->results.at(0).gpu_memory_utilization, 0.95);
  Result<ResultModel> m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const SimConfig& c = m->config();
  EXPECT_DOUBLE_EQ(c.stack.gpu_memory_utilization, 0.95);
  ASSERT_EQ(c.stack.memory_fraction_of, Stack::MemoryFractionOf::kStatic);
  // Static: KV = fraction x HBM - weights - runtime reserve; activations are
  // outside the fraction.
  EXPECT_NEAR(c.memory.budget, 0.95 * c.hardware.HbmBytes(), 1.0);
  EXPECT_NEAR(c.memory.kv, c.memory.budget - c.memory.weights - c.memory.runtime_reserve, 1.0);
  EXPECT_GT(c.memory.kv, 0);

  // TensorRT-LLM: the fraction of what is free after weights, activations and reserve.
  nlohmann::json trt = record;
  trt["stack"] = "trtllm@1.3";
  trt["gpu_memory_utilization"] = 0.75;
  set = load(trt);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const MemoryPlan& p = m->config().memory;
  ASSERT_EQ(m->config().stack.memory_fraction_of, Stack::MemoryFractionOf::kFree);
  EXPECT_NEAR(p.kv, 0.75 * (m->config().hardware.HbmBytes() - p.weights - p.activations - p.runtime_reserve), 1.0);

  // Without the field: the stack's default fraction (at TP 4 that default,
  // 0.88, leaves no KV cache beside 169 GB of weights: the run set 0.95).
  nlohmann::json plain = record;
  plain.erase("gpu_memory_utilization");
  set = load(plain);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("does not fit on b200 at --tp 4"), std::string::npos) << m.status().message();
  plain["gpus"] = 8;
  plain["tp"] = 8;
  set = load(plain);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_FALSE(set->results.at(0).gpu_memory_utilization.has_value());
  Result<Stack> stack = LoadStack("sglang-cuda@0.5.12");
  ASSERT_TRUE(stack.ok());
  m = ResultModel::Create(set->results.at(0), *set, ValidationOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_DOUBLE_EQ(m->config().stack.gpu_memory_utilization, stack->gpu_memory_utilization);

  for (const nlohmann::json& value : {nlohmann::json(0), nlohmann::json(1.2), nlohmann::json(-0.5),
                                      nlohmann::json("0.9"), nlohmann::json{{"value", "high"}, {"source", "x"}}}) {
    nlohmann::json b = record;
    b["gpu_memory_utilization"] = value;
    set = load(b);
    ASSERT_FALSE(set.ok()) << value.dump();
    const std::string& msg = set.status().message();
    EXPECT_NE(msg.find("dsr1-b200-tp4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'gpu_memory_utilization' must be a number in (0, 1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("leave it out to use the stack's default"), std::string::npos) << msg;
  }
}

// The FP4 checkpoints InferenceX loads keep attention in BF16 and quantize the
// feed-forward weights (experts, shared experts, dense MLPs): their catalog
// entries say so, and the records name them.
TEST(ValidationRecordTest, Fp4CheckpointsQuantizeTheFeedForwardWeightsOnly) {
  for (const char* name : {"deepseek-r1-0528-nvfp4-v2", "deepseek-r1-0528-mxfp4"}) {
    Result<ModelSpec> m = LoadModel(name);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->precision, Precision::kBf16) << name;
    EXPECT_EQ(m->ffn_precision, Precision::kFp4) << name;
  }
  Result<ModelSpec> alias = LoadModel("nvidia/DeepSeek-R1-0528-FP4-V2");
  ASSERT_TRUE(alias.ok()) << alias.status().ToString();
  EXPECT_EQ(alias->name, "deepseek-r1-0528-nvfp4-v2");
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  int fp4 = 0;
  for (const auto& r : set->results) {
    if (r.id.rfind("inferencex-", 0) != 0) continue;
    EXPECT_TRUE(r.gpu_memory_utilization.has_value()) << r.id;
    EXPECT_FALSE(r.kv_precision.empty()) << r.id;
    EXPECT_TRUE(r.max_num_batched_tokens.has_value()) << r.id;
    if (r.id.find("-fp4-") != std::string::npos) {
      ++fp4;
      EXPECT_EQ(r.precision, "native") << r.id;
      EXPECT_NE(r.model, "deepseek-r1") << r.id;
    }
  }
  // 6 SGLang and 5 TensorRT-LLM runs on B200, 8 SGLang runs on MI355X (2 of
  // each SGLang line from the history fixture, data/published/inferencex-dsr1-history.json)
  EXPECT_EQ(fp4, 19);
}

TEST(ValidationRecordTest, PublishedValuesAreFiniteAndPositive) {
  testing_util::ScratchDir tmp("published_values");
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/validation");
  const nlohmann::json record = {{"id", "r1"}, {"published", "2024-10-01"}, {"source", "test"},
                                 {"model", "llama-3.1-70b"}, {"hardware", "h100"}, {"gpus", 8}, {"tp", 8},
                                 {"precision", "fp8"}, {"stack", "vllm-cuda@0.7.4"},
                                 {"workload", {{"input_len", 128}, {"output_len", 64}, {"num_prompts", 4}}},
                                 {"scenario", "batch"}, {"value", 100.0}};
  auto error = [&](const std::string& key, double v) {
    nlohmann::json r = record;
    r[key] = v;
    std::ofstream(dir + "/validation/r.json") << nlohmann::json{{"results", {r}}}.dump(2);
    Result<ValidationSet> set = LoadValidation(dir);
    return set.ok() ? std::string("accepted") : set.status().message();
  };
  EXPECT_EQ(error("value", 100), "accepted");
  EXPECT_EQ(error("value", 1e308), dir + "/validation/r.json: r1: value must be a finite number in (0, 1000000000], got 1e+308");
  EXPECT_NE(error("value", -5).find("r1: value must be a finite number in (0, "), std::string::npos);
  EXPECT_NE(error("value", 0).find("r1: value must be a finite number"), std::string::npos);
  EXPECT_NE(error("mean_tpot_ms", 1e308).find("r1: mean_tpot_ms must be a finite number in (0, 1000000000]"),
            std::string::npos);
  EXPECT_NE(error("median_tpot_ms", -1).find("r1: median_tpot_ms must be"), std::string::npos);
}

// InferenceX's client draws each length uniformly in [0.8, 1.0] x ISL and
// OSL; its records give the mean (0.9 x) and range_ratio 1/9, and the model
// draws the lengths as the random dataset does: spread over the whole range,
// the mean kept, the same draw every time. A ratio outside [0, 1) is refused.
TEST(ValidationRecordTest, RangeRatioDrawsTheClientsUniformLengths) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const PublishedResult* r = nullptr;
  for (const auto& x : set->results)
    if (x.id == "inferencex-dsr1-h200-sglangv0.5.12-fp8-tp8-1k1k-c64") r = &x;
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->input_len, 922);
  EXPECT_NEAR(r->range_ratio, 1.0 / 9, 1e-4);
  Result<ResultModel> a = ResultModel::Create(*r, *set, ValidationOptions{});
  Result<ResultModel> b = ResultModel::Create(*r, *set, ValidationOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->requests().size(), 640u);  // 10 x concurrency
  double sum = 0;
  int lo = 1 << 30, hi = 0;
  for (size_t i = 0; i < a->requests().size(); ++i) {
    const auto& q = a->requests()[i];
    EXPECT_EQ(q.input_len, b->requests()[i].input_len);
    EXPECT_EQ(q.output_len, b->requests()[i].output_len);
    EXPECT_TRUE(q.prompt_token_ids.empty());
    sum += q.input_len;
    lo = std::min(lo, q.input_len);
    hi = std::max(hi, q.input_len);
  }
  EXPECT_GE(lo, 819);   // floor((1 - 1/9) x 922)
  EXPECT_LE(hi, 1025);  // ceil((1 + 1/9) x 922)
  EXPECT_LT(lo, 840);   // 640 draws reach both ends
  EXPECT_GT(hi, 1000);
  EXPECT_NEAR(sum / 640, 922, 922 * 0.02);

  testing_util::ScratchDir tmp("range_ratio");
  const std::string dir = tmp.dir.string();
  std::filesystem::create_directories(dir + "/validation");
  const nlohmann::json bad = {{"id", "r1"}, {"published", "2026-05-17"}, {"source", "test"}, {"model", "deepseek-r1"},
                              {"hardware", "h200"}, {"gpus", 8}, {"tp", 8}, {"precision", "native"},
                              {"stack", "sglang-cuda@0.5.12"}, {"scenario", "closed_loop"}, {"concurrency", 4},
                              {"workload", {{"input_len", 922}, {"output_len", 922}, {"range_ratio", 1.0}, {"num_prompts", 40}}},
                              {"value", 393.0}};
  std::ofstream(dir + "/validation/r.json") << nlohmann::json{{"results", {bad}}}.dump(2);
  Result<ValidationSet> refused = LoadValidation(dir);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("r1.workload: range_ratio must be in [0, 1)"), std::string::npos)
      << refused.status().message();
}

#ifndef FRONTIER_SIM_REDUCED
// The stated bound (docs/simulate.md): leave-one-out median |error| at most
// 10 % over every fitted result, and per class at most 10 % (dense) and 12 %
// (MoE, MLA; MoE was 10 % until MLPerf v5.1's Mixtral on 8xH200 joined the
// fit: 11.5 % over its 7 results); every point's leave-one-out error at most 25 %, the aim (the
// largest today is 23.9 %, trtllm@2024.08's MLPerf v4.1 Llama 2 Server on
// 8xH100, with the GH200 rows in that fit since December 2026). TensorRT-LLM 0.17 with DeepSeek-R1 on 8xH200 at concurrency 128,
// 30.5 % while its runtime reserve was an assumed 2 GB, is +10.9 % with its
// scheduler's admission rule modelled and the reserve fitted to it and the
// 1,600- and 3,200-token runs (each one's leave-one-out refit sees the other
// two). The held-out results are not predicted here (`frontier validate`
// does).
TEST(ValidationBoundTest, LeaveOneOutErrorsWithinTheStatedBound) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok());
  ValidateOptions options;
  options.held_out = false;
  // The leave-one-out errors as the stack files record them: every record
  // current (none refitted), and StackRefitTest refits each stack to them.
  Result<ValidationReport> report = Validate(*set, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->loo_refitted.empty());
  std::map<std::string, ClassSummary> by_class;
  for (const auto& c : report->classes) by_class[c.model_class] = c;
  ASSERT_TRUE(by_class.count("all"));
  EXPECT_GE(by_class["all"].points, 120);
  EXPECT_LE(by_class["all"].median_abs_loo, 0.10);
  EXPECT_LE(by_class["all"].max_abs_loo, 0.25);
  EXPECT_LE(by_class["dense"].median_abs_loo, 0.10);
  EXPECT_LE(by_class["MoE"].median_abs_loo, 0.12);
  EXPECT_LE(by_class["MLA"].median_abs_loo, 0.12);
  for (const auto& row : report->rows) {
    if (row.role == "uncalibrated") continue;  // its stack fits nothing (vllm-rocm@0.9, docs/simulate.md)
    ASSERT_TRUE(row.loo_error.has_value()) << row.published.id;
  }
}
#endif

#ifndef FRONTIER_SIM_REDUCED
// The rule of calibration: no result on a validation GPU is ever fitted,
// every one is predicted in the transfer table with its band and flags, and
// the set holds at least 15 of them, MoE models on both vendors among them.
TEST(ValidationTransferTest, EveryValidationGpuResultIsAPurePredictionWithABand) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok());
  std::set<std::string> on_validation_gpus, fitted;
  for (const auto& r : set->results)
    if (!IsCalibrationGpu(r.hardware)) on_validation_gpus.insert(r.id);
  for (const Stack& stack : ListStackVersions())
    for (const auto& id : stack.fitted_to) fitted.insert(id);
  for (const auto& id : on_validation_gpus) EXPECT_FALSE(fitted.count(id)) << id << " is fitted";

  ValidateOptions options;
  options.no_loo = true;
  Result<ValidationReport> report = Validate(*set, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->transfer.size(), on_validation_gpus.size());
  std::set<std::string> moe_vendors;
  for (const auto& row : report->transfer) {
    EXPECT_TRUE(on_validation_gpus.count(row.published.id)) << row.published.id;
    EXPECT_EQ(row.role, "transfer");
    EXPECT_GT(row.band.points, 0) << row.published.id;
    ASSERT_FALSE(row.band.flags.empty()) << row.published.id;
    EXPECT_EQ(row.band.flags[0].rfind("GPU never calibrated", 0), 0u) << row.published.id;
    if (row.failure.empty()) {
      EXPECT_EQ(row.within_band, std::abs(row.error) <= row.band.half_width);
    }
    if (row.model_class != "dense") {
      Result<Hardware> hw = LoadHardware(row.published.hardware);
      ASSERT_TRUE(hw.ok());
      moe_vendors.insert(hw->vendor);
    }
  }
  EXPECT_GE(report->transfer.size(), 15u);
  EXPECT_EQ(moe_vendors, (std::set<std::string>{"amd", "nvidia"}));
  // Both vendors have a transfer rate measured across calibration GPUs, so
  // every band on a validation GPU carries a transfer part.
  ASSERT_EQ(report->transfer_rates.size(), 2u);
  for (const auto& [vendor, rate] : report->transfer_rates) {
    EXPECT_GE(rate.points, 5) << vendor;
    EXPECT_GT(rate.rate, 0) << vendor;
  }
  for (const auto& row : report->transfer)
    EXPECT_NE(row.band.basis.find(" + transfer "), std::string::npos) << row.published.id << ": " << row.band.basis;
  for (const auto& row : report->rows) EXPECT_TRUE(IsCalibrationGpu(row.published.hardware)) << row.published.id;
}
#endif

// Without --refit, validate reads a stack's leave-one-out errors from its
// current record; a record its fresh predictions no longer match (a stack file
// edited after its fit) is refitted, and the refit gives back the errors the
// fit recorded.
TEST(ValidationSetTest, CurrentRecordsAreReadAndStaleOnesRefitted) {
  const std::string stack_id = "trtllm@1.3";  // six closed-loop results on H200: a refit of about a second
  testing_util::ScratchDir tmp("records");
  const std::string dir = tmp.Path("data");
  std::filesystem::copy(DefaultDataDir(), dir, std::filesystem::copy_options::recursive);
  Result<ValidationSet> set = LoadValidation(dir);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ValidateOptions options;
  options.data_dir = dir;
  options.only_stack = stack_id;
  options.held_out = false;
  std::map<std::string, double> recorded;
  Result<Stack> stack = LoadStack(stack_id, dir);
  ASSERT_TRUE(stack.ok());
  for (const auto& p : RecordedPoints(*stack)) recorded[p["id"].get<std::string>()] = p["loo_error"].get<double>();
  ASSERT_EQ(recorded.size(), 6u);

  Result<ValidationReport> current = Validate(*set, options);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(current->loo_recorded, std::vector<std::string>{stack_id});
  EXPECT_TRUE(current->loo_refitted.empty());
  ASSERT_EQ(current->rows.size(), 6u);
  for (const auto& row : current->rows) EXPECT_EQ(*row.loo_error, recorded.at(row.published.id));

  // The record's in-sample predictions 5 % off what the stack now predicts.
  const std::string file = dir + "/stacks/" + stack_id + ".json";
  nlohmann::json j = nlohmann::json::parse(testing_util::Slurp(file));
  for (auto& p : j["calibration"]["points"]) p["predicted"] = p["predicted"].get<double>() * 1.05;
  std::ofstream(file) << j.dump(2);
  Result<ValidationReport> stale = Validate(*set, options);
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_TRUE(stale->loo_recorded.empty());
  EXPECT_EQ(stale->loo_refitted, std::vector<std::string>{stack_id});
  ASSERT_EQ(stale->rows.size(), 6u);
  for (const auto& row : stale->rows) EXPECT_NEAR(*row.loo_error, recorded.at(row.published.id), 0.001);
}

// A stack whose fit saw two calibration GPUs or more records, for every
// point, the error of the refit that left out that point's GPU (the bands'
// transfer rates rest on them); a stack fitted on one GPU records none.
TEST(ValidationSetTest, StacksFittedOnTwoGpusRecordCrossGpuErrors) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok());
  std::map<std::string, std::string> gpu_of;
  for (const auto& r : set->results) gpu_of[r.id] = r.hardware;
  int spanning = 0;
  for (const Stack& stack : ListStackVersions()) {
    const nlohmann::json points = RecordedPoints(stack);
    std::set<std::string> gpus;
    for (const auto& p : points) gpus.insert(gpu_of.at(p["id"].get<std::string>()));
    for (const auto& p : points) {
      const std::string id = p["id"].get<std::string>();
      if (gpus.size() < 2) {
        EXPECT_FALSE(p.contains("cross_gpu_error")) << stack.id() << ": " << id;
        continue;
      }
      ASSERT_TRUE(p.contains("cross_gpu_error")) << stack.id() << ": " << id;
      const double measured = p["measured"].get<double>(), cross = p["cross_gpu_predicted"].get<double>();
      EXPECT_NEAR(p["cross_gpu_error"].get<double>(), cross / measured - 1, 1e-3) << id;
    }
    spanning += gpus.size() >= 2;
  }
  // trtllm@2024.08 (H100, H200, GH200), trtllm@2025.09 (H200, H200 NVL);
  // sglang-rocm@0.5.9 and @0.5.12 (MI300X, MI325X)
  EXPECT_GE(spanning, 4);
}

// Without --stack, a deployment gets the vendor's stack with the newest
// calibrated evidence for its model class (stack.h, DefaultStack): never one
// unfitted for the class while a fitted one exists.
TEST(DefaultStackTest, PicksTheStackFittedForTheModelClass) {
  auto id = [](const char* vendor, const char* cls) {
    Result<Stack> s = DefaultStack(vendor, cls);
    return s.ok() ? s->id() : s.status().ToString();
  };
  EXPECT_EQ(id("nvidia", "MLA"), "trtllm@1.3");        // DeepSeek-R1: InferenceX's TensorRT-LLM 1.3 rows
  EXPECT_EQ(id("nvidia", "dense"), "trtllm@2025.09");  // MLPerf v5.1's Llama 2 70B on 8xH200
  EXPECT_EQ(id("nvidia", "MoE"), "trtllm@2025.09");    // MLPerf v5.1's Mixtral
  EXPECT_EQ(id("amd", "MLA"), "sglang-rocm@0.5.12");   // InferenceX's SGLang on MI300X / MI325X
  EXPECT_EQ(id("amd", "dense"), "vllm-rocm@0.7.3");    // dense costs inherited from 0.6.5's MLPerf v5.0 fit
  // --stack best: the newest version, of any engine, whose own fit saw the class.
  auto best = [](const char* vendor, const char* cls) {
    Result<Stack> s = BestStack(vendor, cls);
    return s.ok() ? s->id() : s.status().ToString();
  };
  EXPECT_EQ(best("nvidia", "MLA"), "trtllm@1.3");        // 2026-05-18, a day after sglang-cuda@0.5.12
  EXPECT_EQ(best("amd", "MLA"), "sglang-rocm@0.5.12");
  EXPECT_EQ(best("nvidia", "dense"), "trtllm@2025.09");
  EXPECT_EQ(best("amd", "dense"), "vllm-rocm@0.6.5");    // not 0.7.3 or 0.9, which only inherit dense costs
  EXPECT_EQ(best("amd", "MoE"), id("amd", "MoE"));       // no AMD version fitted MoE: the default
  SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "mi300x";
  spec.tp = 8;
  spec.stack = "best";
  Result<SimConfig> c = ResolveSimConfig(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->stack.id(), "vllm-rocm@0.6.5");
  for (const Stack& s : ListStackVersions()) {
    for (const char* cls : {"dense", "MoE", "MLA"}) {
      if (std::find(s.fitted_classes.begin(), s.fitted_classes.end(), cls) == s.fitted_classes.end()) continue;
      // A fitted version of this vendor exists for the class: the default was fitted for it somewhere in its lineage.
      Result<Stack> d = DefaultStack(s.vendor, cls);
      ASSERT_TRUE(d.ok());
      bool lineage_fitted = false;
      for (std::optional<Stack> v = *d; v && !lineage_fitted;) {
        lineage_fitted = std::find(v->fitted_classes.begin(), v->fitted_classes.end(), cls) != v->fitted_classes.end();
        if (v->parent.empty()) break;
        Result<Stack> up = LoadStack(v->parent);
        ASSERT_TRUE(up.ok());
        v = *up;
      }
      EXPECT_TRUE(lineage_fitted) << s.vendor << " " << cls << ": " << d->id();
    }
  }
}

// The seeds' claim: "for models under 100 billion parameters and low batch
// sizes (1-4), the NVIDIA H100 maintains a 20-30% throughput advantage"
// (shared/seeds, attributed to Spheron Network, no source or date given).
// The primary measurement of that time says otherwise: AMD's ROCm blog "Best
// practices for competitive inference optimization on AMD Instinct MI300X
// GPUs", 29 January 2025, tests of 15 January 2025
// (https://rocm.blogs.amd.com/artificial-intelligence/LLM_Inference/README.html):
// Llama 3.1 70B FP8 at TP8, end-to-end latency of one static batch,
// 8x MI300X on vLLM (rocm/vllm-dev:20250112) against 8x H100 SXM 80 GB on
// TensorRT-LLM 0.16:
//   batch  input/output   MI300X ms   H100 ms   H100 / MI300X
//   1        128/2048       19089      20923      1.096
//   2        128/2048       19610      20352      1.038
//   4        128/2048       19911      21134      1.061
//   1       2048/2048       19154      21105      1.102
//   2       2048/2048       19671      21449      1.090
//   4       2048/2048       19976      22201      1.111
// (A vendor's figures; RunPod's Mixtral 8x7B and TensorWave's posts of 2024
// also have MI300X ahead at batch 1-4, and no primary source found has H100
// ahead there.) The simulator, with the stacks of early 2025 (vllm-rocm@0.6.5,
// trtllm@2024.08), must put MI300X ahead at every point. It overstates the
// lead: 13.4-14.4 % against the published 3.8-11.1 % (the gap is widest,
// 10.0 points, at batch 2 of 128/2048), and both sides' latencies come out
// 19-24 % short of the published ones (15.0-15.6 s against 19.1-20.0 s on
// MI300X). The test holds the ratio within 11 points, so a change that widens
// the overstatement shows.
TEST(SeedsClaimTest, Mi300xLeadsH100AtBatchOneToFourOnLlama70bFp8) {
  struct Point {
    int batch, input;
    double mi300x_ms, h100_ms;
  };
  const Point points[] = {{1, 128, 19089, 20923},  {2, 128, 19610, 20352},  {4, 128, 19911, 21134},
                          {1, 2048, 19154, 21105}, {2, 2048, 19671, 21449}, {4, 2048, 19976, 22201}};
  auto latency_ms = [](const char* hardware, const char* stack, const Point& p) {
    SimSpec spec;
    spec.model = "llama-3.1-70b";
    spec.hardware = hardware;
    spec.stack = stack;
    spec.tp = 8;
    spec.precision = "fp8";
    Result<SimConfig> c = ResolveSimConfig(spec);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return -1.0;
    std::vector<workload::RequestSpec> batch(static_cast<size_t>(p.batch));
    for (int i = 0; i < p.batch; ++i) {
      batch[static_cast<size_t>(i)].id = i;
      batch[static_cast<size_t>(i)].input_len = p.input;
      batch[static_cast<size_t>(i)].output_len = 2048;
    }
    workload::LoadOptions load;
    load.num_prompts = p.batch;  // one batch, every request sent at once
    Result<RunResult> run = Simulate(*c, batch, load);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    if (!run.ok()) return -1.0;
    double worst = 0;  // the batch ends with its last request
    for (const auto& r : run->requests) worst = std::max(worst, static_cast<double>(r.end_ns - r.sent_ns) / 1e6);
    return worst;
  };
  for (const Point& p : points) {
    const double mi300x = latency_ms("mi300x", "vllm-rocm@0.6.5", p);
    const double h100 = latency_ms("h100-sxm", "trtllm@2024.08", p);
    ASSERT_GT(mi300x, 0);
    ASSERT_GT(h100, 0);
    const double published = p.h100_ms / p.mi300x_ms, predicted = h100 / mi300x;
    EXPECT_GT(predicted, 1.0) << "batch " << p.batch << " input " << p.input << ": MI300X " << mi300x
                              << " ms, H100 " << h100 << " ms";
    EXPECT_NEAR(predicted, published, 0.11) << "batch " << p.batch << " input " << p.input << ": MI300X "
                                            << mi300x << " ms, H100 " << h100 << " ms";
    std::printf("batch %d, %d/2048: MI300X %.0f ms (published %.0f), H100 %.0f ms (published %.0f), "
                "H100/MI300X %.3f (published %.3f)\n",
                p.batch, p.input, mi300x, p.mi300x_ms, h100, p.h100_ms, predicted, published);
  }
}

}  // namespace
}  // namespace frontier::sim
