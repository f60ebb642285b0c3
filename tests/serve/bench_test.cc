// `frontier bench` measuring `frontier serve`: the benchmark client's figures
// must match the server's known timeline, and for the sim profile the
// figures `frontier simulate` predicts for the same workload.
//
// Tolerances (docs/serve.md): fixed profile (ttft 50 ms, itl 10 ms) at
// concurrency 1 and 100: mean TTFT in [50, 60] ms, median TPOT in
// [10, 11] ms. Sim profile at concurrency 1 (no batching between requests,
// so the server's timeline equals the simulator's exactly): median TTFT and
// median TPOT within 5% + 1 ms of `frontier simulate`'s.
#include <sys/wait.h>

#include <cstdlib>

#include "metrics/prometheus.h"
#include "serve/profile.h"
#include "serve_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier::serve::testing {
namespace {

// Runs the frontier binary with `args`; returns its result JSON.
json RunFrontier(const std::vector<std::string>& args) {
  testing_util::ScratchDir tmp("serve_bench");  // the result file, removed on return
  const std::string path = tmp.Path("result.json");
  std::string cmd = testing_util::TestPath("FRONTIER_BIN");
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " --result-json " + path + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0) << cmd;
  json j = json::parse(testing_util::Slurp(path), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << cmd;
  return j;
}

TEST(BenchAgainstServe, FixedProfileFiguresAreTheSchedule) {
  ServeOptions o = TestOptions();
  o.model_name = "fixed";
  o.record_traces = false;
  auto server = StartFixed(50, 10, 1, o);
  ASSERT_TRUE(server);
  for (const char* conc : {"1", "100"}) {
    const json r = RunFrontier({"bench", "--base-url", server->address(), "--model", "fixed", "--num-prompts",
                                std::string(conc) == "1" ? "10" : "200", "--max-concurrency", conc, "--input-len",
                                "32", "--output-len", "20", "--no-progress"});
    ASSERT_TRUE(r.is_object());
    EXPECT_EQ(r["failed"], 0) << conc;
    EXPECT_EQ(r["total_output_tokens"], 20 * r["completed"].get<int>()) << conc;
    // The schedule is a floor the client cannot beat: the request is sent
    // before the server admits it, and event j is due admission + 50 + 10 j ms.
    EXPECT_GE(r["mean_ttft_ms"].get<double>(), 50.0) << conc;
    EXPECT_GE(r["mean_e2el_ms"].get<double>(), 50.0 + 19 * 10.0) << conc;
    std::printf("concurrency %s: mean TTFT %.3f ms (schedule 50), median TPOT %.3f ms (schedule 10)\n", conc,
                r["mean_ttft_ms"].get<double>(), r["median_tpot_ms"].get<double>());
  }
  ExpectHealthy(server->port());
}

TEST(BenchAgainstServe, CancelledRequestsAndGrowingTextSessionsEndToEnd) {
  ServeOptions o = TestOptions();
  o.model_name = "fixed";
  o.record_traces = false;
  auto server = StartFixed(5, 10, 1, o);
  ASSERT_TRUE(server);
  // 3 of 10 requests (round(0.3 x 10)) leave after 4 of their 40 tokens.
  const json c = RunFrontier({"bench", "--base-url", server->address(), "--model", "fixed", "--num-prompts", "10",
                              "--input-len", "8", "--output-len", "40", "--cancel-fraction", "0.3",
                              "--cancel-after-tokens", "4", "--no-progress"});
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(c["cancelled"], 3);
  EXPECT_EQ(c["completed"], 7);
  EXPECT_EQ(c["failed"], 0);
  EXPECT_EQ(c["total_output_tokens"], 7 * 40) << "cancelled requests enter no throughput figure";
  const Nanos give_up = SteadyClock::MonotonicNow() + 10 * kNanosPerSecond;
  while (server->Snapshot().client_disconnects < 3 && SteadyClock::MonotonicNow() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(server->Snapshot().client_disconnects, 3u) << "the server saw each cancelled client leave";

  // Two sessions of three turns, each turn carrying the answers streamed so far.
  const json s = RunFrontier({"bench", "--base-url", server->address(), "--model", "fixed", "--dataset",
                              "multi-turn", "--prompt-format", "text", "--num-prompts", "2", "--mt-turns", "3",
                              "--mt-message-len", "8", "--output-len", "6", "--no-progress"});
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["sessions_completed"], 2);
  EXPECT_EQ(s["completed"], 6);
  EXPECT_EQ(s["frontier"]["effective_settings"]["session_answers_missing"], "0");
  // Turn 3's prompt: 3 messages of 8 words and 2 answers of 6 words (the server counts one token a word).
  EXPECT_EQ(s["total_input_tokens"], 2 * (8 + 22 + 36));
  ExpectHealthy(server->port());
}

TEST(BenchAgainstServe, SimProfileMatchesFrontierSimulateAtConcurrencyOne) {
  ProfileSpec ps;
  ps.sim.model = "llama-3.1-70b";
  ps.sim.hardware = "h200";
  ps.sim.gpus = 8;
  ps.sim.tp = 8;
  ps.sim.precision = "fp8";
  auto profile = ResolveProfile(ps);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ServeOptions o = TestOptions();
  o.model_name = "llama-3.1-70b";
  o.record_traces = false;
  auto server = StartServer(o, std::move(profile->timing));
  ASSERT_TRUE(server);
  const std::vector<std::string> workload = {"--num-prompts", "8", "--max-concurrency", "1", "--input-len", "1000",
                                             "--output-len", "40", "--model", "llama-3.1-70b"};
  std::vector<std::string> bench = {"bench", "--base-url", server->address(), "--no-progress"};
  bench.insert(bench.end(), workload.begin(), workload.end());
  std::vector<std::string> simulate = {"simulate", "--hardware", "h200", "--gpus", "8", "--tp", "8", "--precision",
                                       "fp8"};
  simulate.insert(simulate.end(), workload.begin(), workload.end());
  const json measured = RunFrontier(bench);
  const json predicted = RunFrontier(simulate);
  ASSERT_TRUE(measured.is_object() && predicted.is_object());
  EXPECT_EQ(measured["failed"], 0);
  EXPECT_EQ(measured["total_output_tokens"], predicted["total_output_tokens"]);
  // At concurrency 1 each request meets an idle engine, so the served
  // timeline from admission is the simulated one exactly; a client can only
  // see it later (load delays reads, never advances them). The simulator's
  // modelled client round trip (150 us) is the only slack below.
  for (const char* key : {"median_ttft_ms", "median_e2el_ms"}) {
    const double m = measured[key].get<double>(), p = predicted[key].get<double>();
    EXPECT_GE(m, p - 1.0) << key;
    std::printf("%s: bench against serve %.3f, simulate %.3f\n", key, m, p);
  }
  std::printf("median_tpot_ms: bench against serve %.3f, simulate %.3f\n", measured["median_tpot_ms"].get<double>(),
              predicted["median_tpot_ms"].get<double>());
  ExpectHealthy(server->port());
}

TEST(BenchAgainstServe, ScrapedPrefixCacheHitRateEqualsTheServersOwnCounters) {
  ProfileSpec ps;
  ps.sim.model = "llama-3.1-8b";
  ps.sim.hardware = "h100-sxm";
  auto profile = ResolveProfile(ps);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ServeOptions o = TestOptions();
  o.model_name = "llama-3.1-8b";
  o.record_traces = false;
  auto server = StartServer(o, std::move(profile->timing));
  ASSERT_TRUE(server);
  // 256 shared prompt tokens then 64 of each request's own, one request at
  // a time: every request after the first finds the shared 16 blocks cached.
  const json r = RunFrontier({"bench", "--base-url", server->address(), "--model", "llama-3.1-8b", "--num-prompts",
                              "12", "--max-concurrency", "1", "--prefix-len", "256", "--input-len", "64",
                              "--output-len", "8", "--no-progress", "--scrape-metrics", "--scrape-interval", "0.05"});
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["failed"], 0);
  ASSERT_TRUE(r.contains("server_metrics")) << r.dump();
  const json& m = r["server_metrics"];
  EXPECT_EQ(m["kind"], "vllm");
  EXPECT_EQ(m["scrape_failures"], 0);
  EXPECT_GE(m["samples"]["t_s"].size(), 2u);
  // The server's own counters, read after the run (it started fresh, so its
  // totals are the run's).
  const HttpReply h = Exchange(server->port(), FormatGet("/metrics"));
  ASSERT_EQ(h.status, 200);
  auto e = metrics::ParsePrometheusText(h.body);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double queries = *e->Sum("vllm:prefix_cache_queries_total");
  const double hits = *e->Sum("vllm:prefix_cache_hits_total");
  EXPECT_EQ(m["prefix_cache_queries"].get<double>(), queries);
  EXPECT_EQ(m["prefix_cache_hits"].get<double>(), hits);
  EXPECT_DOUBLE_EQ(m["prefix_cache_hit_rate"].get<double>(), hits / queries);
  // Each request is looked up once, whole: the queries are the prompt tokens.
  EXPECT_EQ(queries, r["total_input_tokens"].get<double>());
  // 11 requests hit the 16 shared blocks (256 tokens) at least.
  EXPECT_GE(hits, 11 * 256.0);
  std::printf("scraped hit rate %.4f (%g of %g prompt tokens)\n", hits / queries, hits, queries);
  ExpectHealthy(server->port());
}

}  // namespace
}  // namespace frontier::serve::testing
