#include "metrics/summary.h"

#include <gtest/gtest.h>

namespace frontier::metrics {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

// A request sent at `sent` ms whose events arrive at the given ms offsets,
// each with the given token count.
RequestRecord Req(int64_t id, double sent, std::vector<std::pair<double, int>> events) {
  RequestRecord r;
  r.id = id;
  r.ok = true;
  r.usage_reported = true;
  r.prompt_tokens = 100;
  r.scheduled_ns = static_cast<Nanos>(sent * kMs);
  r.sent_ns = r.scheduled_ns;
  for (auto& [t, k] : events) {
    r.events.push_back({static_cast<Nanos>(t * kMs), k});
    r.output_tokens += k;
  }
  r.first_token_ns = r.events.front().t_ns;
  r.end_ns = r.events.back().t_ns;
  return r;
}

TEST(SummaryTest, HandComputedSingleRequest) {
  // Sent at 0; first token at 50 ms; then events at 60, 70, 80 (3 tokens), 90.
  RunResult run;
  run.requests.push_back(Req(0, 0, {{50, 1}, {60, 1}, {70, 1}, {80, 3}, {90, 1}}));
  Summary s = Summarize(run, SummaryOptions{});
  EXPECT_EQ(s.completed, 1);
  EXPECT_EQ(s.total_output_tokens, 7);
  EXPECT_DOUBLE_EQ(s.ttft_ms.mean, 50.0);
  EXPECT_DOUBLE_EQ(s.e2el_ms.mean, 90.0);
  // TPOT = (90 - 50) / (7 - 1)
  EXPECT_DOUBLE_EQ(s.tpot_ms.mean, 40.0 / 6.0);
  // ITL samples: 10, 10, 10/3 x3, 10  -> 6 samples, mean 40/6.
  EXPECT_EQ(s.itl_ms.count, 6u);
  EXPECT_NEAR(s.itl_ms.mean, 40.0 / 6.0, 1e-9);
  // Sorted: 10/3, 10/3, 10/3, 10, 10, 10 -> median (10/3 + 10) / 2.
  EXPECT_NEAR(s.itl_ms.median, 20.0 / 3.0, 1e-9);
  // ICL: the 4 raw gaps of 10 ms.
  EXPECT_EQ(s.icl_ms.count, 4u);
  EXPECT_DOUBLE_EQ(s.icl_ms.mean, 10.0);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.090);
  EXPECT_NEAR(s.output_throughput, 7 / 0.090, 1e-9);
  EXPECT_NEAR(s.interactivity, 1000.0 / (40.0 / 6.0), 1e-9);
}

TEST(SummaryTest, ThroughputGoodputAndConcurrency) {
  RunResult run;
  // Two overlapping requests and one after them; one warm-up, one failure.
  run.requests.push_back(Req(0, 0, {{100, 1}, {200, 1}}));      // TTFT 100, TPOT 100
  run.requests.push_back(Req(1, 50, {{80, 1}, {130, 1}}));      // TTFT 30, TPOT 50
  run.requests.push_back(Req(2, 300, {{310, 1}, {1000, 1}}));   // TTFT 10, TPOT 690
  // The warm-up overlaps requests 0 and 1: counted, it would make the peak 3.
  RequestRecord warm = Req(3, 0, {{120, 1}});
  warm.warmup = true;
  run.requests.push_back(warm);
  RequestRecord bad;
  bad.id = 4;
  bad.scheduled_ns = bad.sent_ns = 400 * kMs;
  bad.end_ns = 410 * kMs;
  bad.failure = failure::kRateLimited;
  run.requests.push_back(bad);
  run.num_gpus = 2;

  SummaryOptions o;
  o.num_gpus = 2;
  o.goodput.tpot_ms = 200;
  Summary s = Summarize(run, o);
  EXPECT_EQ(s.completed, 3);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.warmup, 1);
  EXPECT_EQ(s.failures_by_reason.at("http_429"), 1);
  EXPECT_DOUBLE_EQ(s.duration_s, 1.0);  // 0 .. 1000 ms
  EXPECT_DOUBLE_EQ(s.request_throughput, 3.0);
  EXPECT_DOUBLE_EQ(s.total_token_throughput, 306.0);
  EXPECT_DOUBLE_EQ(s.total_token_throughput_per_gpu, 153.0);
  EXPECT_DOUBLE_EQ(s.request_goodput, 2.0);  // the 690 ms TPOT request misses the SLO
  EXPECT_DOUBLE_EQ(s.tpot_ms.median, 100.0);
  EXPECT_DOUBLE_EQ(s.interactivity, 10.0);
  EXPECT_EQ(s.max_concurrent_requests, 2);
  EXPECT_DOUBLE_EQ(*s.ttft_ms.At(50), 30.0);
  // One token per event: ICL and ITL are the same three gaps (100, 50, 690 ms).
  EXPECT_EQ(s.itl_ms.count, 3u);
  EXPECT_EQ(s.icl_ms.count, 3u);
  EXPECT_DOUBLE_EQ(s.icl_ms.mean, 280.0);
  EXPECT_DOUBLE_EQ(s.itl_ms.median, 100.0);
  EXPECT_DOUBLE_EQ(s.icl_ms.median, 100.0);
}

TEST(SummaryTest, IntertokenGapsAcrossRequestsWhenOneEventCarriesSeveralTokens) {
  RunResult run;
  run.requests.push_back(Req(0, 0, {{10, 1}, {20, 1}, {30, 1}}));           // gaps 10, 10
  run.requests.push_back(Req(1, 0, {{5, 1}, {25, 1}, {45, 2}, {50, 1}}));   // 20, 20 (2 tokens), 5
  run.requests.push_back(Req(2, 0, {{40, 1}, {100, 1}}));                   // 60
  run.requests.push_back(Req(3, 0, {{70, 1}}));                             // none
  RequestRecord warm = Req(4, 0, {{1, 1}, {2, 1}, {3, 1}});
  warm.warmup = true;
  run.requests.push_back(warm);
  const Summary s = Summarize(run, SummaryOptions{});
  // ITL: 10, 10, 20, 10, 10 (the 2-token gap split), 5, 60.
  EXPECT_EQ(s.itl_ms.count, 7u);
  EXPECT_NEAR(s.itl_ms.mean, 125.0 / 7, 1e-9);
  EXPECT_DOUBLE_EQ(s.itl_ms.median, 10.0);
  EXPECT_NEAR(*s.itl_ms.At(99), 20 + 0.94 * 40, 1e-9);  // rank 5.94: between 20 and 60
  // ICL: the six raw gaps 10, 10, 20, 20, 5, 60.
  EXPECT_EQ(s.icl_ms.count, 6u);
  EXPECT_NEAR(s.icl_ms.mean, 125.0 / 6, 1e-9);
  EXPECT_DOUBLE_EQ(s.icl_ms.median, 15.0);
}

TEST(SummaryTest, NoRequestCompletedListsEveryReasonWithItsCount) {
  EXPECT_EQ(NoRequestCompleted({}), "no request completed (no requests)");
  EXPECT_EQ(NoRequestCompleted({{"timeout", 3}}), "no request completed (3 timeout)");
  // The map's order (by reason), whatever the counts.
  EXPECT_EQ(NoRequestCompleted({{"http_500", 5}, {"connect", 2}, {"timeout", 1}}),
            "no request completed (2 connect, 5 http_500, 1 timeout)");
}

// A run whose every request failed: the reasons as Summarize counts them.
TEST(SummaryTest, NoRequestCompletedFromASummarisedRun) {
  RunResult run;
  for (int i = 0; i < 3; ++i) {
    RequestRecord r;
    r.id = i;
    r.ok = false;
    r.failure = i < 2 ? "http_429" : "connect";
    run.requests.push_back(r);
  }
  const Summary s = Summarize(run, SummaryOptions{});
  EXPECT_EQ(s.completed, 0);
  EXPECT_EQ(NoRequestCompleted(s.failures_by_reason), "no request completed (1 connect, 2 http_429)");
}

TEST(SummaryTest, PercentileKeysMatchVllm) {
  EXPECT_EQ(PercentileKey(99), "p99");
  EXPECT_EQ(PercentileKey(99.9), "p99.9");
  EXPECT_EQ(PercentileKey(50), "p50");
}

}  // namespace
}  // namespace frontier::metrics
