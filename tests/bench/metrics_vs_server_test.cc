// The whole measured path (timing core + HTTP target + Summarize) against the
// scripted server's truth: the server's own emission times, put through the
// same Summarize, give the reference TTFT, TPOT, ITL and token counts.
//
// What is asserted holds on a loaded machine: token counts and sample counts
// are exact; per request, the client's TTFT and E2EL are at least the
// server's (the client sends before the server reads, and reads after the
// server writes); the server never writes an event before the script has it
// due. The differences themselves are printed; their size on an idle machine
// is a benchmark figure (bench/loadgen_capacity, bench/client_vs_peer).
#include <gtest/gtest.h>

#include <map>

#include "client_test_util.h"
#include "loadgen/http_target.h"
#include "loadgen/runner.h"
#include "metrics/summary.h"

namespace frontier {
namespace {

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

void CheckAgainstServer(int concurrency, int requests) {
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
  std::printf("concurrency %d: TTFT %.3f vs %.3f ms, TPOT %.3f vs %.3f ms, ITL %.3f vs %.3f ms, "
              "E2EL %.3f vs %.3f ms (client vs server)\n",
              concurrency, measured.ttft_ms.mean, truth.ttft_ms.mean, measured.tpot_ms.mean,
              truth.tpot_ms.mean, measured.itl_ms.mean, truth.itl_ms.mean, measured.e2el_ms.mean,
              truth.e2el_ms.mean);
  // The client cannot see a request's first token or its end sooner than the server made them.
  EXPECT_GE(measured.ttft_ms.mean, truth.ttft_ms.mean);
  EXPECT_GE(measured.e2el_ms.mean, truth.e2el_ms.mean);
  for (const auto& r : run->requests) {
    testing::ServedRequest sr;
    ASSERT_TRUE(server->Find("frontier-" + std::to_string(r.id), &sr));
    // Rebased client times and the server's absolute ones differ by the run's
    // start; compare durations, which need no common origin.
    EXPECT_GE(r.first_token_ns - r.sent_ns, sr.emissions.front().t_ns - sr.received_ns) << r.id;
    EXPECT_GE(r.end_ns - r.sent_ns, sr.finished_ns - sr.received_ns) << r.id;
    // The server's schedule: event i not before received + 50 ms + i x 10 ms.
    for (size_t i = 0; i < sr.emissions.size(); ++i)
      EXPECT_GE(sr.emissions[i].t_ns - sr.received_ns, 50 * kMs + static_cast<Nanos>(i) * 10 * kMs) << r.id;
  }
}

TEST(MetricsVsServerTest, Concurrency1) { CheckAgainstServer(1, 4); }
TEST(MetricsVsServerTest, Concurrency256) { CheckAgainstServer(256, 512); }

}  // namespace
}  // namespace frontier
