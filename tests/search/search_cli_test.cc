// `frontier search`, and `--scenario` on bench and simulate, end to end through
// the binary: the SLO search on the simulator, verdicts stored with the point,
// one-line usage errors. (The live capacity search is search_capacity_test.cc.)
#include "search_test_util.h"

namespace frontier::serve::testing {
namespace {

// The same question of the simulator, over concurrency under an SLO: the
// answer is the valid trial with the most throughput per GPU.
TEST(SearchCli, SloOverConcurrencyOnTheSimulator) {
  const Ran r = Frontier({"search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--input-len", "256",
                          "--output-len", "64", "--num-prompts", "200", "--slo", "ttft_p99:450", "tpot_p99:40",
                          "--min-interactivity", "25"});
  ASSERT_EQ(r.rc, 0) << r.out;
  const json& j = r.result;
  EXPECT_EQ(j["goal"], "max_throughput_per_gpu");
  EXPECT_EQ(j["axis"], "concurrency");
  ASSERT_TRUE(j["answer"].is_object()) << r.out;
  double best = 0;
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["result"]["frontier"]["source"], "simulated");
    // Provenance: the system and search flags as given, the system's GPU count as used.
    const json& f = t["result"]["frontier"];
    EXPECT_EQ(f["requested_settings"]["hardware"], "h100-sxm");
    EXPECT_EQ(f["requested_settings"]["model"], "llama-3.1-8b");
    EXPECT_EQ(f["requested_settings"]["slo"], "ttft_p99:450 tpot_p99:40");
    EXPECT_EQ(f["effective_settings"]["num_gpus"], "1");
    if (t["verdict"]["result"] == "VALID")
      best = std::max(best, t["result"]["output_throughput_per_gpu"].get<double>());
  }
  EXPECT_DOUBLE_EQ(j["answer"]["output_throughput_per_gpu"].get<double>(), best);
  EXPECT_GT(j["answer"]["interactivity"].get<double>(), 25);
}

// simulate --scenario: the verdict is printed and stored with the point.
TEST(ScenarioCli, SimulateJudgesARun) {
  const std::vector<std::string> system = {"simulate", "--model", "llama-2-70b", "--hardware", "h200", "--gpus", "8",
                                           "--tp", "1", "--precision", "fp8", "--input-len", "512", "--output-len",
                                           "128", "--scenario", "interactive"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = system;
    a.insert(a.end(), extra.begin(), extra.end());
    return Frontier(a);
  };
  const Ran ok = with({"--target-qps", "10", "--min-duration", "30"});
  ASSERT_EQ(ok.rc, 0) << ok.out;
  const json& v = ok.result["verdict"];
  EXPECT_EQ(v["result"], "VALID") << ok.out;
  EXPECT_EQ(v["benchmark"], "llama2-70b");
  EXPECT_EQ(v["constraints"][0]["limit_ms"], 450);
  EXPECT_EQ(v["constraints"][1]["limit_ms"], 40);
  EXPECT_GE(v["duration_s"].get<double>(), 30);
  EXPECT_GE(v["queries"].get<int64_t>(), 300);  // 10 QPS x 30 s, and at least 459
  EXPECT_EQ(ok.result["frontier"]["effective_settings"]["scenario"], "interactive");
  EXPECT_NE(ok.out.find("Result is : VALID"), std::string::npos);

  // Too short for early stopping's 459 queries.
  const Ran few = with({"--target-qps", "10", "--min-query-count", "100", "--min-duration", "5"});
  ASSERT_EQ(few.rc, 0) << few.out;
  EXPECT_EQ(few.result["verdict"]["result"], "INVALID");
  EXPECT_EQ(few.result["verdict"]["early_stopping_met"], false);
  EXPECT_NE(few.out.find("Early stopping satisfied: NO"), std::string::npos);
}

// bench --scenario against a server with no slot limit: TTFT is 20 ms, VALID
// (the limit leaves room for a slow sanitizer build on a loaded machine).
TEST(ScenarioCli, BenchJudgesALiveRun) {
  auto server = StartFixedServer(0);
  ASSERT_TRUE(server);
  const Ran r = Frontier({"bench", "--base-url", server->address(), "--model", "fixed", "--input-len", "16",
                          "--output-len", "8", "--scenario", "server", "--target-qps", "200", "--slo",
                          "ttft_p99:2000", "--min-duration", "1", "--min-query-count", "500", "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.out;
  const json& v = r.result["verdict"];
  EXPECT_EQ(v["result"], "VALID") << r.out;
  EXPECT_EQ(v["queries"], 500);
  EXPECT_EQ(r.result["completed"], 500);
  EXPECT_EQ(r.result["num_prompts"], 500);
  EXPECT_EQ(v["constraints_source"], "--slo");
  EXPECT_NE(r.out.find("MLPerf Results Summary"), std::string::npos);
}

TEST(ScenarioCli, BadFlagsAreOneLineUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server", "--target-qps", "1",
        "--request-rate", "5"},
       "--request-rate"},
      {{"simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server"}, "--target-qps"},
      {{"simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "fast"}, "--scenario"},
      {{"simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--slo", "ttft:abc"}, "--slo"},
      {{"simulate", "--model", "qwen3-235b-a22b", "--hardware", "h200", "--gpus", "8", "--tp", "8", "--scenario", "server", "--target-qps", "1"},
       "--mlperf-benchmark"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200"}, "--scenario"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server", "--target-qps", "3"},
       "--target-qps"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server", "--over", "concurrency"},
       "--over"},
      {{"search", "--model", "fixed", "--base-url", "http://127.0.0.1:1", "--hardware", "h200", "--slo", "ttft:1"},
       "--hardware"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--slo", "ttft:1", "--client-rtt-us", "-1"},
       "--client-rtt-us"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--gpus", "2", "--slo", "ttft:1", "--num-gpus",
        "4"},
       "--num-gpus"},
      {{"simulate", "--model", "llama-3.1-8b", "--hardware", "h200", "--client-rtt-us", "2e9"}, "--client-rtt-us"},
  };
  for (const auto& c : cases) {
    const Ran r = Frontier(c.args, /*with_result=*/false);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

}  // namespace
}  // namespace frontier::serve::testing
