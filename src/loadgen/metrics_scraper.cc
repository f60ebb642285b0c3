#include "loadgen/metrics_scraper.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "client/models.h"
#include "core/parse.h"

namespace frontier::loadgen {

const std::vector<std::string_view> kTrackedSeries = {
    // vLLM V1 (and frontier serve)
    "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
    "vllm:num_preemptions_total", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
    "vllm:prompt_tokens_total", "vllm:generation_tokens_total",
    // vLLM V0's names for the same gauges
    "vllm:gpu_cache_usage_perc", "vllm:gpu_prefix_cache_hit_rate",
    // SGLang
    "sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage", "sglang:cache_hit_rate",
    "sglang:num_retracted_reqs",
    // llama.cpp
    "llamacpp:requests_processing", "llamacpp:requests_deferred", "llamacpp:kv_cache_usage_ratio",
    "llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total"};

MetricsScraper::MetricsScraper(Options options)
    : options_(std::move(options)), start_ns_(SteadyClock::MonotonicNow()) {
  metrics_.source = options_.url;
  // The baseline before the constructor returns, so it precedes the run's
  // first request and counter deltas cover the whole run.
  ScrapeOnce();
  ticker_.Start(start_ns_, options_.period_ns, SteadyClock::Get(), [this] { ScrapeOnce(); });
}

MetricsScraper::~MetricsScraper() { ticker_.Stop(); }

void MetricsScraper::ScrapeOnce() {
  const Nanos timeout = std::clamp<Nanos>(options_.period_ns, 100 * kNanosPerMilli, 5 * kNanosPerSecond);
  Result<std::string> body = client::HttpGet(options_.client, options_.url, timeout, metrics::kMaxPrometheusBytes);
  const Nanos t = SteadyClock::MonotonicNow() - start_ns_;
  std::string error;
  ServerSample sample;
  if (body.ok()) {
    Result<metrics::Exposition> e = metrics::ParsePrometheusText(*body);
    if (e.ok()) {
      sample = SampleOf(*e, t);
    } else {
      error = "GET " + options_.url + ": " + e.status().message();
    }
  } else {
    error = body.status().message();
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++metrics_.scrapes;
  if (!error.empty()) {
    ++metrics_.scrape_failures;
    metrics_.last_error = std::move(error);
    return;
  }
  metrics_.samples.push_back(std::move(sample));
}

ServerMetrics MetricsScraper::Finish() {
  ticker_.Stop();
  ScrapeOnce();  // the counters as the run ends
  std::lock_guard<std::mutex> lock(mu_);
  ServerMetrics out = metrics_;
  Summarize(&out);
  return out;
}

ServerSample MetricsScraper::SampleOf(const metrics::Exposition& e, Nanos t_ns) {
  ServerSample s;
  s.t_ns = t_ns;
  for (const std::string_view name : kTrackedSeries)
    if (auto v = e.Sum(name)) s.values[std::string(name)] = *v;
  return s;
}

void MetricsScraper::Summarize(ServerMetrics* m) {
  const ServerSample* first = nullptr;
  const ServerSample* last = nullptr;
  bool sglang = false, vllm = false, llamacpp = false;
  for (const auto& s : m->samples) {
    for (const auto& [k, v] : s.values) {
      vllm |= k.rfind("vllm:", 0) == 0;
      sglang |= k.rfind("sglang:", 0) == 0;
      llamacpp |= k.rfind("llamacpp:", 0) == 0;
    }
    if (s.values.count("vllm:prefix_cache_queries_total") && s.values.count("vllm:prefix_cache_hits_total")) {
      if (first == nullptr) first = &s;
      last = &s;
    }
  }
  m->kind = vllm ? "vllm" : sglang ? "sglang" : llamacpp ? "llama.cpp" : "";
  if (first != nullptr) {
    const double q = last->values.at("vllm:prefix_cache_queries_total") -
                     first->values.at("vllm:prefix_cache_queries_total");
    const double h = last->values.at("vllm:prefix_cache_hits_total") - first->values.at("vllm:prefix_cache_hits_total");
    // Counters that fell (a restart) or hits above queries are not a hit
    // rate: they are kept as unknown, with the reason, never stored as > 1.
    if (!std::isfinite(q) || !std::isfinite(h) || q < 0 || h < 0 || h > q) {
      m->last_error = "inconsistent prefix cache counters over the run: vllm:prefix_cache_hits_total grew by " +
                      FormatNumber(h) + ", vllm:prefix_cache_queries_total by " +
                      FormatNumber(q) + " (hits must be in [0, queries]); the hit rate is unknown";
      return;
    }
    m->prefix_cache_queries = q;
    m->prefix_cache_hits = h;
    m->prefix_cache_hit_rate = q > 0 ? h / q : -1;
    return;
  }
  for (auto it = m->samples.rbegin(); it != m->samples.rend(); ++it) {
    auto v = it->values.find("sglang:cache_hit_rate");
    if (v != it->values.end() && std::isfinite(v->second)) {
      if (v->second < 0 || v->second > 1) {
        m->last_error = "sglang:cache_hit_rate must be in [0, 1], got " + FormatNumber(v->second) +
                        "; the hit rate is unknown";
        return;
      }
      m->prefix_cache_hit_rate = v->second;
      return;
    }
  }
}

std::string ServerMetricsText(const ServerMetrics& m) {
  std::ostringstream out;  // the stream's default formatting of the rate, as printed before
  out << "server metrics: " << m.samples.size() << " samples from " << m.source;
  if (m.scrape_failures > 0) out << ", " << m.scrape_failures << " failed (" << m.last_error << ")";
  out << "\n";
  if (m.prefix_cache_hit_rate >= 0) {
    out << "achieved prefix-cache hit rate: " << m.prefix_cache_hit_rate * 100 << "%";
    if (m.prefix_cache_queries >= 0)
      out << " (" << static_cast<long long>(m.prefix_cache_hits) << " of "
          << static_cast<long long>(m.prefix_cache_queries) << " prompt tokens)";
    out << "\n";
  }
  return out.str();
}

}  // namespace frontier::loadgen
