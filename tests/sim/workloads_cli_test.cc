// `frontier simulate` with the shared-prefix, trace and multi-turn workloads
// end to end: the ideal hit rate printed and stored, session counts in the
// result file, and one-line errors naming the flag.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace {

using frontier::testing_util::ScratchDir;
using frontier::testing_util::TestPath;

std::pair<int, std::string> RunFrontier(const std::string& args) {
  return frontier::testing::RunCommand(TestPath("FRONTIER_BIN") + " " + args);
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

const std::string kSim = "simulate --model llama-3.1-8b --hardware h100-sxm ";

TEST(WorkloadsCliTest, SharedPrefixIdealHitRateIsTheHandComputedOne) {
  ScratchDir tmp("workloads_gsp");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("gsp.json");
  auto [status, text] = RunFrontier(kSim + "--dataset shared-prefix --gsp-num-groups 8 --gsp-prompts-per-group 8 "
                                   "--gsp-system-prompt-len 1024 --gsp-question-len 64 --gsp-output-len 16 "
                                   "--max-concurrency 16 --result-json " + path);
  ASSERT_EQ(status, 0) << text;
  // 8 groups x 7 later prompts x 1024 hit tokens / (64 prompts x 1088 tokens).
  EXPECT_NE(text.find("Ideal prefix-cache hit rate:              82.35% (16-token blocks)"), std::string::npos)
      << text;
  const auto j = ReadJson(path);
  EXPECT_EQ(j["completed"], 64);
  EXPECT_DOUBLE_EQ(j["ideal_prefix_hit_rate"].get<double>(), 8.0 * 7 * 1024 / (64.0 * 1088));
  EXPECT_EQ(j["ideal_hit_block_tokens"], 16);
}

TEST(WorkloadsCliTest, TraceSessionsRunToTheEnd) {
  ScratchDir tmp("workloads_trace");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("trace.json");
  auto [status, text] = RunFrontier(kSim + "--dataset trace --trace " + TestPath("FRONTIER_SOURCE_DIR") +
                            "/data/traces/agentic_sample.jsonl --result-json " + path);
  ASSERT_EQ(status, 0) << text;
  const auto j = ReadJson(path);
  EXPECT_EQ(j["completed"], 10);  // 3 + 2 + 3 turns and 2 subagents
  EXPECT_EQ(j["sessions_completed"], 3);
  EXPECT_EQ(j["sessions_failed"], 0);
  EXPECT_EQ(j["num_prompts"], 3);  // sessions
  EXPECT_GT(j["mean_session_latency_ms"].get<double>(), j["mean_turn_e2el_ms"].get<double>());
  EXPECT_GT(j["ideal_prefix_hit_rate"].get<double>(), 0.5);
}

TEST(WorkloadsCliTest, ConcurrencySweepOfSessionsCountsOpenSessions) {
  ScratchDir tmp("workloads_mtsweep");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("mtsweep.json");
  auto [status, text] = RunFrontier(kSim + "--dataset multi-turn --mt-turns 3 --mt-system-prompt-len 1024 "
                                   "--mt-message-len 128 --output-len 64 --num-prompts 8 --concurrency 2,4 "
                                   "--result-json " + path);
  ASSERT_EQ(status, 0) << text;
  // At least 4 x the concurrency of sessions: 8 at 2, 16 at 4. Per session
  // (S = 1024, U = 128, O = 64, 3 turns) 3S + 6U + 3O = 4032 prompt tokens,
  // of which an infinite cache hits 3S + 3U + 3O = 3648, less S in the first session.
  for (int c : {2, 4}) {
    const std::string at = path.substr(0, path.size() - 5) + ".c" + std::to_string(c) + ".json";
    const auto j = ReadJson(at);
    const int n = std::max(8, 4 * c);
    EXPECT_EQ(j["max_concurrency"], c);
    EXPECT_EQ(j["num_prompts"], n);
    EXPECT_EQ(j["sessions_completed"], n);
    EXPECT_EQ(j["completed"], 3 * n);
    EXPECT_LE(j["max_concurrent_requests"].get<int>(), c);  // one turn in flight per open session
    EXPECT_DOUBLE_EQ(j["ideal_prefix_hit_rate"].get<double>(), (3648.0 * n - 1024) / (4032.0 * n));
  }
  // A row per point.
  EXPECT_NE(text.find("\n     2       8 "), std::string::npos) << text;
  EXPECT_NE(text.find("\n     4      16 "), std::string::npos) << text;
}

TEST(WorkloadsCliTest, MultiTurnCancellationCountedApart) {
  ScratchDir tmp("workloads_mt");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("mt.json");
  auto [status, text] = RunFrontier(kSim + "--dataset multi-turn --num-prompts 20 --mt-turns 4 --mt-message-len 64 "
                                   "--output-len 32 --max-concurrency 8 --cancel-fraction 0.1 "
                                   "--cancel-after-tokens 5 --result-json " + path);
  ASSERT_EQ(status, 0) << text;
  const auto j = ReadJson(path);
  // 80 requests planned; round(0.1 x 80) = 8 are marked, but a cancelled turn
  // ends its session, so marked later turns of such a session are never sent.
  const int64_t cancelled = j["cancelled"].get<int64_t>();
  EXPECT_GE(cancelled, 1);
  EXPECT_LE(cancelled, 8);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["session_end_reasons"]["cancelled"].get<int64_t>(), cancelled);
  EXPECT_EQ(j["sessions_completed"].get<int64_t>() + cancelled, 20);
}

TEST(WorkloadsCliTest, BadSessionFlagsAreOneLineNamingTheFlag) {
  auto [s1, t1] = RunFrontier(kSim + "--dataset multi-turn --request-rate 5");
  EXPECT_EQ(s1, 2);
  EXPECT_NE(t1.find("--request-rate cannot be given with --dataset multi-turn"), std::string::npos) << t1;
  auto [s2, t2] = RunFrontier(kSim + "--dataset trace");
  EXPECT_EQ(s2, 2);
  EXPECT_NE(t2.find("--trace is required for dataset trace"), std::string::npos) << t2;
  auto [s3, t3] = RunFrontier(kSim + "--cancel-after-tokens 4");
  EXPECT_EQ(s3, 2);
  EXPECT_NE(t3.find("--cancel-fraction"), std::string::npos) << t3;
  auto [s4, t4] = RunFrontier(kSim + "--think-time-ms 100");
  EXPECT_EQ(s4, 2);
  EXPECT_NE(t4.find("--think-time-ms needs a session workload"), std::string::npos) << t4;
}

}  // namespace
