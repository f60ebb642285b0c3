// `frontier simulate` and `frontier validate` end to end: exit codes, one-line
// errors naming the flag, the sweep table and the result file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace {

using frontier::testing_util::TestPath;

struct Output {
  int status = -1;
  std::string text;  // stdout and stderr
};

Output RunFrontier(const std::string& args) {
  auto [status, text] = frontier::testing::RunCommand(TestPath("FRONTIER_BIN") + " " + args);
  return {status, text};
}

TEST(SimulateCliTest, BadInputIsOneLineNamingTheFlag) {
  Output o = RunFrontier("simulate --model llama-9 --hardware h200");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--model: unknown model 'llama-9'; known:"), std::string::npos) << o.text;
  EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << o.text;
  o = RunFrontier("simulate --model llama-3.1-70b --hardware h200 --tp 3");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--tp 3 does not divide"), std::string::npos) << o.text;
  o = RunFrontier("simulate --model llama-3.1-405b --hardware h100 --tp 8 --precision bf16");
  EXPECT_EQ(o.status, 1);  // valid input, cannot be done
  EXPECT_NE(o.text.find("short by"), std::string::npos) << o.text;
  o = RunFrontier("simulate --model deepseek-r1 --hardware h200 --tp 8 --ep 300");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--ep 300"), std::string::npos) << o.text;
  o = RunFrontier("simulate --model llama-3.1-8b --hardware h200 --request-rate -1");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--request-rate"), std::string::npos) << o.text;
}

TEST(SimulateCliTest, SweepPrintsOneRowPerPointAndMarksTheFrontier) {
  Output o = RunFrontier("simulate --model llama-3.1-8b --hardware h100 --tp 1 --input-len 512 --output-len 128 "
                 "--num-prompts 64 --concurrency 1,4,16,64");
  ASSERT_EQ(o.status, 0) << o.text;
  int rows = 0, marked = 0;
  std::istringstream in(o.text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    long conc;
    if (f >> conc && (conc == 1 || conc == 4 || conc == 16 || conc == 64) && line.size() > 60) {
      ++rows;
      if (line.back() == '*') ++marked;
    }
  }
  EXPECT_EQ(rows, 4) << o.text;
  // Throughput rises and interactivity falls with concurrency: every point is on the frontier.
  EXPECT_EQ(marked, 4) << o.text;
}

TEST(SimulateCliTest, ResultJsonIsSimulatedAndVllmNamed) {
  frontier::testing_util::ScratchDir tmp("sim_cli");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("result.json");
  Output o = RunFrontier("simulate --model llama-3.1-70b --hardware mi300x --tp 8 --precision fp8 --input-len 1024 "
                 "--output-len 256 --max-concurrency 32 --num-prompts 128 --explain --result-json " + path);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("-bound"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("TP all-reduce"), std::string::npos) << o.text;
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["completed"].get<int>(), 128);
  EXPECT_EQ(j["total_output_tokens"].get<int>(), 128 * 256);
  EXPECT_EQ(j["frontier"]["source"], "simulated");
  EXPECT_GT(j["output_throughput"].get<double>(), 0);
  EXPECT_GT(j["median_tpot_ms"].get<double>(), 0);
  EXPECT_EQ(j["max_concurrency"].get<int>(), 32);
}

// Stack versions: --list shows each with its release date and what it was
// calibrated on; "name@series" picks the newest of a series; an unknown
// version lists the known ones.
TEST(SimulateCliTest, StacksAreVersioned) {
  Output o = RunFrontier("simulate --list");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("vllm-rocm@0.4.3"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("2024-06-01"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("mlperf4.1-llama2-offline-8xmi300x"), std::string::npos) << o.text;
  o = RunFrontier(
      "simulate --model llama-3.1-8b --hardware mi300x --stack sglang-rocm@0.4 --concurrency 1 "
      "--num-prompts 4 --output-len 16");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("stack sglang-rocm@0.4.2"), std::string::npos) << o.text;
  o = RunFrontier("simulate --model llama-3.1-8b --hardware mi300x --stack vllm-rocm@9");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("known: 0.4.3"), std::string::npos) << o.text;
  o = RunFrontier("simulate --model llama-3.1-8b --hardware h100 --stack vllm-rocm@0.7.3");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("runs on amd GPUs"), std::string::npos) << o.text;
}

// The deployments of headline results are accepted and described; half a
// disaggregated deployment is an error naming the missing flag.
TEST(SimulateCliTest, AttentionDpDisaggregationAndAutoSeqs) {
  Output o = RunFrontier(
      "simulate --model deepseek-r1 --hardware h200 --gpus 16 --attention-dp --concurrency 64 "
      "--input-len 512 --output-len 64");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("(tp 1, ep 16, dp 16, attention DP)"), std::string::npos) << o.text;
  o = RunFrontier(
      "simulate --model deepseek-r1 --hardware h200 --prefill-workers 1 --prefill-tp 8 "
      "--decode-workers 1 "
      "--decode-tp 8 --concurrency 16 --input-len 512 --output-len 64");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("prefill"), std::string::npos) << o.text;
  o = RunFrontier(
      "simulate --model deepseek-r1 --hardware h200 --prefill-workers 1 --prefill-tp 8 "
      "--concurrency 16");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("--decode-workers"), std::string::npos) << o.text;
  // auto: each concurrency value runs all its streams at once (no point capped
  // by the stack's max_num_seqs of 512), each on >= 4 x c requests.
  o = RunFrontier(
      "simulate --model llama-3.1-8b --hardware h100 --max-num-seqs auto --concurrency 1,1024 "
      "--input-len 128 --output-len 16");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("  1024    4096 "), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("capped"), std::string::npos) << o.text;
  o = RunFrontier(
      "simulate --model llama-3.1-8b --hardware h100 --concurrency 1024 --input-len 128 "
      "--output-len 16");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("capped"), std::string::npos) << o.text;
  // A server's cap is fixed when it starts.
  o = RunFrontier("serve --model llama-3.1-8b --hardware h100 --max-num-seqs auto");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("give a number"), std::string::npos) << o.text;
}

// --best-deployment sweeps the layouts of the GPUs and prints the best one at
// each interactivity.
TEST(SimulateCliTest, BestDeploymentPerInteractivity) {
  Output o = RunFrontier(
      "simulate --model deepseek-r1 --hardware h200 --gpus 16 --best-deployment "
      "--concurrency 4,256 --input-len 512 --output-len 64");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("attention-dp ep16"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("tp16 "), std::string::npos) << o.text;  // listed, skipped with its reason
  const size_t table = o.text.find("best deployment at each interactivity");
  ASSERT_NE(table, std::string::npos) << o.text;
  std::istringstream in(o.text.substr(table));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    double usr, gpu;
    long conc;
    if (f >> usr >> gpu >> conc) ++rows;
  }
  EXPECT_GE(rows, 2) << o.text;
  o = RunFrontier("simulate --model deepseek-r1 --hardware h200 --best-deployment --concurrency 4");
  EXPECT_EQ(o.status, 2) << o.text;
}

TEST(ValidateCliTest, PrintsPredictedPublishedAndError) {
  Output o = RunFrontier("validate --id mlperf4.1-llama2-offline-8xh200 --no-loo");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("mlperf4.1-llama2-offline-8xh200"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("31303"), std::string::npos) << o.text;  // published tokens/s
  EXPECT_NE(o.text.find("fitted"), std::string::npos) << o.text;
  o = RunFrontier("validate --id nothing-like-this");
  EXPECT_EQ(o.status, 2);
}

// The Oracle batch results fit in milliseconds: the table has the fit and
// leave-one-out columns and the fitted parameters with their priors.
TEST(CalibrateCliTest, FitsAStackAndPrintsLeaveOneOut) {
  Output o = RunFrontier("calibrate --stack vllm-rocm@2024.10 --dry-run");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("oci-llama3.1-405b-8xmi300x-b1"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("LOO err"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("overhead.kernel_us"), std::string::npos) << o.text;
  o = RunFrontier("calibrate --stack vllm-rocm@2024.10 --dry-run --fit no.such.parameter");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("no.such.parameter"), std::string::npos) << o.text;
  o = RunFrontier("calibrate --dry-run");
  EXPECT_EQ(o.status, 2) << o.text;
  // --stack all with --id fits only the stacks that have matching results.
  o = RunFrontier("calibrate --stack all --id oci-llama3.1 --dry-run");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("5 points over 1 stacks"), std::string::npos) << o.text;
  o = RunFrontier("calibrate --stack all --id nothing-like-this --dry-run");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("nothing-like-this"), std::string::npos) << o.text;
}

// --explain names, per operator, the efficiency it ran at and the parameter
// that set it.
TEST(SimulateCliTest, ExplainShowsEachOperatorsEfficiencyAndWhy) {
  Output o = RunFrontier(
      "simulate --model deepseek-r1 --hardware h200 --tp 8 --max-concurrency 64 --num-prompts 64 "
      "--input-len 2048 --output-len 16 --explain");
  ASSERT_EQ(o.status, 0) << o.text;
  // The curve, its argument and its parameters: FP8 GEMMs of the 64 decode
  // rows per GPU with DeepSeek's block scales, on trtllm@1.3 (the NVIDIA
  // default for MLA models).
  for (const char* want : {"efficiency and why", "gemm.fp8 x scaling.block_fp8:", " x 64 / (64 + ",
                           "attention.mla_prefill:", "attention.mla_decode_bw", "overhead.kernel_us", "overhead.mla_kernel_us", "overhead.step_us",
                           "(collectives.allreduce_us)"})
    EXPECT_NE(o.text.find(want), std::string::npos) << want << "\n" << o.text;
}

}  // namespace
