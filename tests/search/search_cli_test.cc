// `frontier search`, and `--scenario` on bench and simulate, end to end through
// the binary: the search finds the known capacity of `frontier serve --profile
// fixed --slots`, writes every trial, and bad flags are one-line usage errors.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

struct Ran {
  int rc = -1;
  std::string out;  // stdout and stderr
  json result;      // the --result-json file, when asked for
};

Ran Frontier(const std::vector<std::string>& args, bool with_result = true) {
  char json_path[] = "/tmp/frontier_search_test_XXXXXX";
  char out_path[] = "/tmp/frontier_search_out_XXXXXX";
  const int fd1 = mkstemp(json_path), fd2 = mkstemp(out_path);
  close(fd1);
  close(fd2);
  std::string cmd = std::string(FRONTIER_BINARY_PATH);
  for (const auto& a : args) cmd += " '" + a + "'";
  if (with_result) cmd += " --result-json " + std::string(json_path);
  cmd += " > " + std::string(out_path) + " 2>&1";
  Ran r;
  r.rc = WEXITSTATUS(std::system(cmd.c_str()));
  std::ifstream out(out_path), res(json_path);
  std::stringstream so, sr;
  so << out.rdbuf();
  sr << res.rdbuf();
  r.out = so.str();
  if (with_result) r.result = json::parse(sr.str(), nullptr, false);
  unlink(json_path);
  unlink(out_path);
  return r;
}

// `frontier serve --profile fixed --ttft-ms 20 --itl-ms 5 --slots S`, in process.
std::unique_ptr<Server> StartFixedServer(int64_t slots) {
  FixedProfile p;
  p.ttft_ms = 20;
  p.itl_ms = 5;
  p.slots = slots;
  ServeOptions o = TestOptions();
  o.model_name = "fixed";
  o.record_traces = false;
  return StartServer(o, std::make_unique<FixedTiming>(p));
}

// 16 slots, each request holding one for 20 ms + 16 x 5 ms = 100 ms (17
// tokens): capacity 160 req/s. TTFT p99 <= 300 ms leaves 280 ms of queueing.
// Above capacity the wait grows by (rate / 160 - 1) x elapsed: over a run of
// about 3.5 s, every rate above 1.1 x 160 has more than 1 % of its queries over
// 300 ms, so is INVALID; at 0.6 x 160 a 16-slot queue with a fixed hold has no
// 280 ms waits (even a loaded client's jitter stays far below). So the
// highest valid QPS lies in [0.6, 1.15] x 160. Without --slots the server
// never saturates and the search runs up to its cap instead.
TEST(SearchCli, FindsTheCapacityOfTheFixedServer) {
  auto server = StartFixedServer(16);
  ASSERT_TRUE(server);
  const Ran r = Frontier({"search", "--base-url", server->address(), "--model", "fixed", "--input-len", "16",
                          "--output-len", "17", "--scenario", "server", "--slo", "ttft_p99:300", "--min-duration",
                          "2", "--min-query-count", "500", "--start", "120", "--tolerance", "0.05", "--max-trials",
                          "12"});
  ASSERT_EQ(r.rc, 0) << r.out;
  const json& j = r.result;
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["goal"], "max_valid_qps");
  ASSERT_TRUE(j["max_valid_qps"].is_number()) << r.out;
  const double qps = j["max_valid_qps"];
  EXPECT_GE(qps, 0.6 * 160) << r.out;
  EXPECT_LE(qps, 1.15 * 160) << r.out;
  // Every trial is in the file with its verdict, and the answer is a valid one.
  EXPECT_EQ(j["trials"].size(), j["trial_count"].get<size_t>());
  ASSERT_GE(j["trials"].size(), 3u);
  const json& best = j["trials"][j["answer"]["trial"].get<size_t>()];
  EXPECT_EQ(best["verdict"]["result"], "VALID");
  EXPECT_EQ(best["value"], qps);
  for (const auto& t : j["trials"]) {
    EXPECT_TRUE(t["verdict"]["result"] == "VALID" || t["verdict"]["result"] == "INVALID");
    EXPECT_EQ(t["result"]["frontier"]["source"], "measured");
    if (t["value"].get<double>() > qps) {
      EXPECT_EQ(t["verdict"]["result"], "INVALID");
    }
  }
  EXPECT_NE(r.out.find("max valid QPS"), std::string::npos);
  EXPECT_NE(r.out.find("MLPerf Results Summary"), std::string::npos);
  ExpectHealthy(server->port());
}

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

// bench --scenario against a server with no slot limit: TTFT is 20 ms, VALID.
TEST(ScenarioCli, BenchJudgesALiveRun) {
  auto server = StartFixedServer(0);
  ASSERT_TRUE(server);
  const Ran r = Frontier({"bench", "--base-url", server->address(), "--model", "fixed", "--input-len", "16",
                          "--output-len", "8", "--scenario", "server", "--target-qps", "200", "--slo",
                          "ttft_p99:300", "--min-duration", "1", "--min-query-count", "500", "--no-progress"});
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
      {{"simulate", "--model", "gpt-oss-120b", "--hardware", "h200", "--gpus", "8", "--tp", "8", "--scenario", "server", "--target-qps", "1"},
       "--mlperf-benchmark"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200"}, "--scenario"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server", "--target-qps", "3"},
       "--target-qps"},
      {{"search", "--model", "llama-3.1-8b", "--hardware", "h200", "--scenario", "server", "--over", "concurrency"},
       "--over"},
      {{"search", "--model", "fixed", "--base-url", "http://127.0.0.1:1", "--hardware", "h200", "--slo", "ttft:1"},
       "--hardware"},
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
