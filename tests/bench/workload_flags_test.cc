// The shared workload/load/output flags: parsing, defaults, and the one-line
// errors that name the flag.
#include "cli/workload_flags.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace frontier::cli {
namespace {

Result<ResolvedWorkload> ParseArgs(std::vector<std::string> args) {
  CLI::App app{"test"};
  WorkloadFlags flags;
  AddWorkloadFlags(app, &flags);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(e.what());
  }
  return ResolveWorkload(flags);
}

TEST(WorkloadFlagsTest, DefaultsMatchVllm) {
  auto w = ParseArgs({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->dataset.kind, workload::DatasetKind::kRandom);
  EXPECT_EQ(w->dataset.random.input_len, 1024);
  EXPECT_EQ(w->dataset.random.output_len, 128);
  EXPECT_EQ(w->load.num_prompts, 1000);
  EXPECT_TRUE(std::isinf(w->load.request_rate));
  EXPECT_FALSE(w->load.max_concurrency.has_value());
  EXPECT_TRUE(w->ignore_eos);
  EXPECT_EQ(w->summary.percentiles, (std::vector<double>{50, 90, 95, 99, 99.9}));
  EXPECT_TRUE(w->requested.empty());
  EXPECT_EQ(w->effective.at("request_rate"), "inf");
}

TEST(WorkloadFlagsTest, ParsesEveryFlag) {
  auto w = ParseArgs({"--input-len", "200", "--output-len", "20", "--range-ratio", "0.25",
                      "--prefix-len", "8", "--prompt-format", "text", "--no-ignore-eos",
                      "--seed", "9", "--num-prompts", "50", "--warmup", "5",
                      "--max-concurrency", "16", "--request-rate", "12.5", "--burstiness", "0.5",
                      "--percentiles", "50,99", "--goodput", "ttft:200", "tpot:40",
                      "--num-gpus", "8", "--result-json", "r.json", "--requests-jsonl", "q.jsonl"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->dataset.random.format, workload::PromptFormat::kText);
  EXPECT_FALSE(w->ignore_eos);
  EXPECT_EQ(w->dataset.num_prompts, 55);  // warm-up + measured
  EXPECT_EQ(w->load.num_prompts, 50);
  EXPECT_EQ(w->load.warmup, 5);
  EXPECT_EQ(*w->load.max_concurrency, 16);
  EXPECT_DOUBLE_EQ(w->load.request_rate, 12.5);
  EXPECT_DOUBLE_EQ(w->load.burstiness, 0.5);
  EXPECT_EQ(w->load.seed, 9u);
  EXPECT_DOUBLE_EQ(*w->summary.goodput.ttft_ms, 200);
  EXPECT_DOUBLE_EQ(*w->summary.goodput.tpot_ms, 40);
  EXPECT_FALSE(w->summary.goodput.e2el_ms.has_value());
  EXPECT_EQ(w->summary.num_gpus, 8);
  EXPECT_EQ(w->result_json, "r.json");
  EXPECT_EQ(w->requested.at("request-rate"), "12.5");
  EXPECT_EQ(w->effective.at("max_concurrency"), "16");
}

// The one reader of given flags: an option's values joined as typed, a flag's
// last value, the name without "--" (a negation under its first long name).
TEST(WorkloadFlagsTest, GivenFlagsAsTyped) {
  auto w = ParseArgs({"--goodput", "ttft:200", "tpot:40", "--goodput", "e2el:900", "--ignore-eos",
                      "--no-ignore-eos", "--seed", "7"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->requested, (std::map<std::string, std::string>{
                              {"goodput", "ttft:200 tpot:40 e2el:900"}, {"ignore-eos", "false"}, {"seed", "7"}}));
}

TEST(WorkloadFlagsTest, InfiniteBurstinessSendsAllAtOnce) {
  auto w = ParseArgs({"--request-rate", "10", "--burstiness", "inf"});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(std::isinf(w->load.request_rate));
}

TEST(WorkloadFlagsTest, DurationCyclesTheDataset) {
  auto w = ParseArgs({"--duration", "30", "--max-concurrency", "4"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->load.num_prompts, kUnboundedPrompts);
  EXPECT_TRUE(w->dataset.allow_repeat);
  EXPECT_DOUBLE_EQ(*w->load.duration_s, 30);
  auto bounded = ParseArgs({"--duration", "30", "--max-concurrency", "4", "--num-prompts", "10"});
  ASSERT_TRUE(bounded.ok());
  EXPECT_EQ(bounded->load.num_prompts, 10);
}

TEST(WorkloadFlagsTest, ShareGptOutputLenOnlyWhenGiven) {
  auto a = ParseArgs({"--dataset", "sharegpt", "--dataset-path", "x.json"});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->dataset.sharegpt_output_len.has_value());
  EXPECT_FALSE(a->ignore_eos);  // on by default for random only
  auto b = ParseArgs({"--dataset", "sharegpt", "--dataset-path", "x.json", "--output-len", "64"});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b->dataset.sharegpt_output_len, 64);
}

// Each bad value is rejected with a message that names its flag.
TEST(WorkloadFlagsTest, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--dataset", "foo"}, "--dataset"},
      {{"--dataset-path", "x"}, "--dataset-path"},
      {{"--prompt-format", "ids"}, "--prompt-format"},
      {{"--input-len", "0"}, "--input-len"},
      {{"--output-len", "-3"}, "--output-len"},
      {{"--range-ratio", "1"}, "--range-ratio"},
      {{"--num-prompts", "0"}, "--num-prompts"},
      {{"--warmup", "-1"}, "--warmup"},
      {{"--max-concurrency", "0"}, "--max-concurrency"},
      {{"--request-rate", "fast"}, "--request-rate"},
      {{"--request-rate", "-2"}, "--request-rate"},
      {{"--burstiness", "0"}, "--burstiness"},
      {{"--percentiles", "50,101"}, "--percentiles"},
      {{"--goodput", "ttft"}, "--goodput"},
      {{"--goodput", "latency:5"}, "--goodput"},
      {{"--num-gpus", "0"}, "--num-gpus"},
      {{"--timeslice", "-1"}, "--timeslice"},
      {{"--timeslice", "0.0001"}, "--timeslice"},
      {{"--duration", "10"}, "--duration"},
      {{"--input-len", "abc"}, "--input-len"},
      {{"--scenario", "batch"}, "--scenario"},
      {{"--scenario", "server", "--num-prompts", "5"}, "--num-prompts"},
      {{"--scenario", "server", "--max-concurrency", "5"}, "--max-concurrency"},
      {{"--slo", "ttft_p99"}, "--slo"},
  };
  for (const auto& [args, flag] : cases) {
    auto w = ParseArgs(args);
    ASSERT_FALSE(w.ok()) << args[0];
    EXPECT_NE(w.status().message().find(flag), std::string::npos)
        << args[0] << " -> " << w.status().message();
    EXPECT_EQ(w.status().message().find('\n'), std::string::npos);
  }
}

// --scenario server: the scenario's load replaces the flags' (Poisson at
// --target-qps until a query is planned at or after --min-duration), and the
// prompts are a pool (the benchmark's performance sample count) reused cyclically.
TEST(WorkloadFlagsTest, ScenarioReplacesTheLoad) {
  auto w = ParseArgs({"--scenario", "server", "--target-qps", "20", "--min-duration", "30", "--slo", "ttft_p99:450",
                      "--warmup", "3"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(w->scenario.has_value());
  const char* data = std::getenv("FRONTIER_DATA_DIR");
  auto rules = ResolveScenarioRules(*w, data != nullptr ? data : "data", "");
  ASSERT_TRUE(rules.ok()) << rules.status().ToString();
  ASSERT_TRUE(rules->has_value());
  EXPECT_EQ((*rules)->min_query_count, 459);
  ASSERT_TRUE(ApplyScenarioLoad(**rules, &*w).ok());
  EXPECT_DOUBLE_EQ(w->load.request_rate, 20);
  EXPECT_GE(w->load.num_prompts, 600 - 100);  // about 20 x 30
  EXPECT_LE(w->load.num_prompts, 600 + 100);
  EXPECT_EQ(w->load.warmup, 3);
  EXPECT_EQ(w->dataset.num_prompts, w->load.num_prompts + 3);  // under the pool of 1000: no reuse needed
  EXPECT_TRUE(w->dataset.allow_repeat);
  EXPECT_EQ(w->effective.at("scenario"), "server");
  EXPECT_EQ(w->effective.at("slo"), "ttft_p99:450");
  // A plain SLO changes no load and needs no table.
  auto slo = ParseArgs({"--slo", "tpot_p99:40", "--max-concurrency", "8"});
  ASSERT_TRUE(slo.ok());
  auto slo_rules = ResolveScenarioRules(*slo, "/nonexistent", "");
  ASSERT_TRUE(slo_rules.ok());
  ASSERT_TRUE(ApplyScenarioLoad(**slo_rules, &*slo).ok());
  EXPECT_EQ(*slo->load.max_concurrency, 8);
  EXPECT_EQ(slo->effective.at("slo"), "tpot_p99:40");
}

}  // namespace
}  // namespace frontier::cli
