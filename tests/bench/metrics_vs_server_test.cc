// The whole measured path (timing core + HTTP target + Summarize) against the
// scripted server's truth: the server's own emission times, put through the
// same Summarize, give the reference TTFT, TPOT, ITL and token counts.
//
// Stated tolerance: mean TPOT and ITL within 1.5 ms of the server's at
// concurrency 1 and 256; mean TTFT and E2EL within 1.5 ms at concurrency 1 and
// 15 ms at 256. The client's TTFT rightly includes opening the connection and
// the request's trip to the server, which the server's own clock cannot see;
// with 256 connections opened at once against a one-thread server on a shared
// machine that is a few milliseconds. Token counts are exact.
#include <gtest/gtest.h>

#include <map>

#include "client_test_util.h"
#include "loadgen/http_target.h"
#include "loadgen/runner.h"
#include "metrics/summary.h"

namespace frontier {
namespace {

constexpr double kTolMs = 1.5;

RunResult ServerTruth(const ScriptedServer& server) {
  RunResult truth;
  for (const auto& s : server.Served()) {
    RequestRecord r;
    r.ok = s.completed;
    r.usage_reported = true;
    r.sent_ns = r.scheduled_ns = s.received_ns;
    for (const auto& e : s.emissions) {
      r.events.push_back({e.t_ns, e.tokens});
      r.output_tokens += e.tokens;
    }
    r.first_token_ns = r.events.empty() ? -1 : r.events.front().t_ns;
    r.end_ns = s.finished_ns;
    truth.requests.push_back(std::move(r));
  }
  return truth;
}

void CheckAgainstServer(int concurrency, int requests, double ttft_tol_ms) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = 50 * kMs;
    s.interval = 10 * kMs;
    s.events = 20;
    s.tokens_pattern = {1, 1, 1, 1, 3};
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  auto target = loadgen::HttpTarget::Create(o);
  ASSERT_TRUE(target.ok());
  std::vector<workload::RequestSpec> specs(static_cast<size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    specs[static_cast<size_t>(i)].id = i;
    specs[static_cast<size_t>(i)].input_len = 4;
    specs[static_cast<size_t>(i)].output_len = 28;
    specs[static_cast<size_t>(i)].prompt_token_ids = {101, 102, 103, 104};
  }
  workload::LoadOptions load;
  load.num_prompts = requests;
  load.max_concurrency = concurrency;
  auto run = loadgen::RunLoad(**target, specs, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  metrics::Summary measured = metrics::Summarize(*run, {});
  metrics::Summary truth = metrics::Summarize(ServerTruth(*server), {});
  ASSERT_EQ(measured.completed, requests);
  ASSERT_EQ(truth.completed, requests);
  EXPECT_EQ(measured.total_output_tokens, truth.total_output_tokens);
  EXPECT_EQ(measured.total_output_tokens, 28 * requests);
  EXPECT_EQ(measured.total_input_tokens, 4 * requests);
  EXPECT_TRUE(measured.usage_from_server);
  EXPECT_EQ(measured.itl_ms.count, truth.itl_ms.count);
  EXPECT_LE(measured.max_concurrent_requests, concurrency);
  // All slots full at once unless opening 256 connections outlasts a request.
  if (kTimingChecks) {
    EXPECT_EQ(measured.max_concurrent_requests, concurrency);
  }
  std::printf("concurrency %d: TTFT %.3f vs %.3f ms, TPOT %.3f vs %.3f ms, ITL %.3f vs %.3f ms, "
              "E2EL %.3f vs %.3f ms (client vs server)\n",
              concurrency, measured.ttft_ms.mean, truth.ttft_ms.mean, measured.tpot_ms.mean,
              truth.tpot_ms.mean, measured.itl_ms.mean, truth.itl_ms.mean, measured.e2el_ms.mean,
              truth.e2el_ms.mean);
  EXPECT_GE(measured.ttft_ms.mean, truth.ttft_ms.mean);  // the client cannot see it sooner
  if (!kTimingChecks) return;
  EXPECT_NEAR(measured.ttft_ms.mean, truth.ttft_ms.mean, ttft_tol_ms);
  EXPECT_NEAR(measured.tpot_ms.mean, truth.tpot_ms.mean, kTolMs);
  EXPECT_NEAR(measured.itl_ms.mean, truth.itl_ms.mean, kTolMs);
  // Not the ITL median: with 12 samples of 3.3 ms and 15 of 10 ms per request
  // it sits on the edge between the two modes and jumps with any jitter.
  EXPECT_NEAR(measured.icl_ms.median, truth.icl_ms.median, kTolMs);
  EXPECT_NEAR(measured.e2el_ms.mean, truth.e2el_ms.mean, ttft_tol_ms);
  // And the server's truth is what the script says: 50 ms, then 10 ms gaps
  // (checked at concurrency 1 only: at 256 streams a busy shared machine
  // delays the server's own writes, which the comparison above tolerates).
  if (concurrency > 1) return;
  EXPECT_NEAR(truth.ttft_ms.mean, 50.0, 2.0);
  EXPECT_NEAR(truth.icl_ms.median, 10.0, 1.0);
  EXPECT_NEAR(truth.itl_ms.median, 10.0, 1.0);  // 15 of 27 ITL samples are whole gaps
}

TEST(MetricsVsServerTest, Concurrency1) { CheckAgainstServer(1, 4, kTolMs); }
TEST(MetricsVsServerTest, Concurrency256) { CheckAgainstServer(256, 512, 15.0); }

}  // namespace
}  // namespace frontier
