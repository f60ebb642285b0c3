// metrics_scraper.h: samples a server's Prometheus /metrics while a measured
// run goes on (`frontier bench --scrape-metrics`), off the measured path on
// a small thread of its own, and sums the run up as RunResult::server_metrics.
//
//   MetricsScraper scraper({.url = base + "/metrics", .client = client_options});
//   ... run the point ...
//   run.server_metrics = scraper.Finish();   // one last sample, then the summary
//
// Each scrape is one GET (client::HttpGet, bounded by
// metrics::kMaxPrometheusBytes and a timeout of one period, at most 5 s),
// parsed by metrics::ParsePrometheusText; the series a sample keeps are
// kTrackedSeries, each summed over its label sets (engines, models). A failed
// scrape is counted and its reason kept; it never stops the run.
//
// The achieved prefix-cache hit rate (Summarize): vLLM and frontier serve,
// the deltas of vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total
// from the first sample to the last (so counts before the run are left out);
// SGLang, the last value of its sglang:cache_hit_rate gauge (the server's own
// figure; it is not a counter, so the run's share cannot be isolated).
// llama.cpp exposes no prefix-cache counters: unknown.
//
// Thread safety: construct, then Finish() once, from one thread; the scraping
// thread touches only the scraper's own state under its lock.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/stream_client.h"
#include "core/clock.h"
#include "core/periodic_thread.h"
#include "core/run_result.h"
#include "metrics/prometheus.h"

namespace frontier::loadgen {

// Series kept in each sample (names as exposed). vLLM (V1 and V0's gauge
// names), SGLang, llama.cpp; frontier serve uses vLLM's.
extern const std::vector<std::string_view> kTrackedSeries;

class MetricsScraper {
 public:
  struct Options {
    std::string url;                     // e.g. http://127.0.0.1:8000/metrics
    Nanos period_ns = kNanosPerSecond;   // between scrapes
    client::ClientOptions client;        // API key, headers, TLS settings
  };

  // Takes the first sample before returning (the baseline the counters'
  // deltas start from), then one every period on its own thread.
  explicit MetricsScraper(Options options);
  ~MetricsScraper();  // stops the thread if Finish() was not called
  MetricsScraper(const MetricsScraper&) = delete;
  MetricsScraper& operator=(const MetricsScraper&) = delete;

  // Stops scraping, takes a last sample and returns the summary (Summarize).
  ServerMetrics Finish();

  // The tracked series of one exposition at time `t_ns` (exposed for tests).
  static ServerSample SampleOf(const metrics::Exposition& e, Nanos t_ns);
  // Sets kind and the prefix-cache figures from m->samples (see above).
  static void Summarize(ServerMetrics* m);

 private:
  void ScrapeOnce();

  Options options_;
  Nanos start_ns_;
  std::mutex mu_;
  ServerMetrics metrics_;  // guarded by mu_
  PeriodicThread ticker_;
};

// The lines `frontier bench` prints after a scraped run: the samples and
// their source (and failures), then the achieved prefix-cache hit rate when known.
std::string ServerMetricsText(const ServerMetrics& m);

}  // namespace frontier::loadgen
