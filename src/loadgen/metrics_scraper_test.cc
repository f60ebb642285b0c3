#include "loadgen/metrics_scraper.h"

#include <gtest/gtest.h>

namespace frontier::loadgen {
namespace {

ServerSample Sample(Nanos t, std::map<std::string, double> v) {
  ServerSample s;
  s.t_ns = t;
  s.values = std::move(v);
  return s;
}

TEST(MetricsScraperTest, KeepsTrackedSeriesSummedOverLabelSets) {
  auto e = metrics::ParsePrometheusText(
      "vllm:prefix_cache_hits_total{engine=\"0\"} 10\n"
      "vllm:prefix_cache_hits_total{engine=\"1\"} 5\n"
      "vllm:num_requests_running{engine=\"0\"} 2\n"
      "python_gc_objects_collected_total 99\n");
  ASSERT_TRUE(e.ok());
  const ServerSample s = MetricsScraper::SampleOf(*e, 7);
  EXPECT_EQ(s.t_ns, 7);
  EXPECT_EQ(s.values.size(), 2u);  // untracked series are left out
  EXPECT_DOUBLE_EQ(s.values.at("vllm:prefix_cache_hits_total"), 15);
  EXPECT_DOUBLE_EQ(s.values.at("vllm:num_requests_running"), 2);
}

TEST(MetricsScraperTest, VllmHitRateIsTheRatioOfCounterDeltasOverTheRun) {
  ServerMetrics m;
  // Counters already at 1000 / 400 before the run: left out.
  m.samples.push_back(Sample(0, {{"vllm:prefix_cache_queries_total", 1000}, {"vllm:prefix_cache_hits_total", 400}}));
  m.samples.push_back(Sample(1, {{"vllm:kv_cache_usage_perc", 0.5}}));  // a scrape without them
  m.samples.push_back(Sample(2, {{"vllm:prefix_cache_queries_total", 3000}, {"vllm:prefix_cache_hits_total", 1900}}));
  MetricsScraper::Summarize(&m);
  EXPECT_EQ(m.kind, "vllm");
  EXPECT_DOUBLE_EQ(m.prefix_cache_queries, 2000);
  EXPECT_DOUBLE_EQ(m.prefix_cache_hits, 1500);
  EXPECT_DOUBLE_EQ(m.prefix_cache_hit_rate, 0.75);
}

TEST(MetricsScraperTest, SglangHitRateIsItsLastGaugeAndLlamaCppHasNone) {
  ServerMetrics s;
  s.samples.push_back(Sample(0, {{"sglang:cache_hit_rate", 0.2}}));
  s.samples.push_back(Sample(1, {{"sglang:cache_hit_rate", 0.6}, {"sglang:num_running_reqs", 3}}));
  MetricsScraper::Summarize(&s);
  EXPECT_EQ(s.kind, "sglang");
  EXPECT_DOUBLE_EQ(s.prefix_cache_hit_rate, 0.6);
  EXPECT_LT(s.prefix_cache_queries, 0);  // no counters: unknown
  ServerMetrics l;
  l.samples.push_back(Sample(0, {{"llamacpp:kv_cache_usage_ratio", 0.1}}));
  MetricsScraper::Summarize(&l);
  EXPECT_EQ(l.kind, "llama.cpp");
  EXPECT_LT(l.prefix_cache_hit_rate, 0);
}

TEST(MetricsScraperTest, HitsAboveQueriesAreNoHitRate) {
  ServerMetrics m;
  m.samples.push_back(Sample(0, {{"vllm:prefix_cache_queries_total", 10}, {"vllm:prefix_cache_hits_total", 0}}));
  m.samples.push_back(Sample(1, {{"vllm:prefix_cache_queries_total", 20}, {"vllm:prefix_cache_hits_total", 1000}}));
  MetricsScraper::Summarize(&m);
  EXPECT_LT(m.prefix_cache_hit_rate, 0);  // unknown, not 100
  EXPECT_LT(m.prefix_cache_hits, 0);
  EXPECT_NE(m.last_error.find("vllm:prefix_cache_hits_total grew by 1000, vllm:prefix_cache_queries_total by 10"),
            std::string::npos)
      << m.last_error;
  // Counters that fell (a restart) are no hit rate either.
  ServerMetrics fell;
  fell.samples.push_back(Sample(0, {{"vllm:prefix_cache_queries_total", 500}, {"vllm:prefix_cache_hits_total", 50}}));
  fell.samples.push_back(Sample(1, {{"vllm:prefix_cache_queries_total", 5}, {"vllm:prefix_cache_hits_total", 1}}));
  MetricsScraper::Summarize(&fell);
  EXPECT_LT(fell.prefix_cache_hit_rate, 0);
  // SGLang's gauge outside [0, 1].
  ServerMetrics g;
  g.samples.push_back(Sample(0, {{"sglang:cache_hit_rate", 100}}));
  MetricsScraper::Summarize(&g);
  EXPECT_LT(g.prefix_cache_hit_rate, 0);
  EXPECT_NE(g.last_error.find("sglang:cache_hit_rate must be in [0, 1], got 100"), std::string::npos) << g.last_error;
}

TEST(MetricsScraperTest, AnUnreachableServerIsCountedNotFatal) {
  MetricsScraper::Options o;
  o.url = "http://127.0.0.1:1/metrics";  // nothing listens on port 1
  o.period_ns = 50 * kNanosPerMilli;
  MetricsScraper scraper(o);
  const ServerMetrics m = scraper.Finish();
  EXPECT_GE(m.scrapes, 2);  // the first at once, the last at Finish
  EXPECT_EQ(m.scrape_failures, m.scrapes);
  EXPECT_TRUE(m.samples.empty());
  EXPECT_NE(m.last_error.find("127.0.0.1:1/metrics"), std::string::npos) << m.last_error;
  EXPECT_LT(m.prefix_cache_hit_rate, 0);
}

}  // namespace
}  // namespace frontier::loadgen
