#include "loadgen/benchmark.h"

#include <algorithm>
#include <optional>

#include "loadgen/metrics_scraper.h"

#include "client/models.h"
#include "core/host_name.h"
#include "loadgen/http_target.h"
#include "loadgen/worker_pool.h"
#include "metrics/prometheus.h"

namespace frontier::loadgen {

std::string ResolveVocabulary(const client::ClientOptions& client, int64_t vocab_flag,
                              workload::DatasetOptions* dataset, std::map<std::string, std::string>* effective) {
  if (dataset->kind != workload::DatasetKind::kRandom ||
      dataset->random.format != workload::PromptFormat::kTokenIds)
    return "";
  std::string source = vocab_flag > 0 ? "--vocab-size" : "default";
  if (vocab_flag > 0) dataset->random.vocab_size = static_cast<int32_t>(vocab_flag);
  std::string note;
  auto info = client::QueryModel(client, 5 * kNanosPerSecond);
  if (info.ok() && info->n_vocab > 0) {
    if (vocab_flag > 0 && vocab_flag != info->n_vocab)
      note = "the server's /v1/models gives n_vocab " + std::to_string(info->n_vocab) +
             "; using it instead of --vocab-size " + std::to_string(vocab_flag);
    dataset->random.vocab_size = static_cast<int32_t>(info->n_vocab);
    source = "server /v1/models meta.n_vocab";
  }
  (*effective)["vocab_size"] = std::to_string(dataset->random.vocab_size);
  (*effective)["vocab_size_source"] = source;
  return note;
}

void DescribeHttp(const client::ClientOptions& options, RunResult* run) {
  run->source = RunSource::kMeasured;
  run->host = HostName();
  run->base_url = options.base_url;
  run->endpoint = options.endpoint;
}

Result<BenchOutcome> RunBenchmark(const BenchOptions& o, const std::vector<workload::RequestSpec>& specs,
                                  const workload::LoadOptions& load, Observer* observer,
                                  const std::atomic<bool>* stop) {
  std::unique_ptr<Target> target;
  if (o.workers > 1) {
    // The pool's workers own their streams on their own threads: a timed
    // cancel and a streamed answer would have to cross them.
    bool cancels = false;
    for (const auto& s : specs) cancels = cancels || s.cancel_after_ns > 0 || s.cancel_after_tokens > 0;
    if (o.sessions != nullptr)
      for (const auto& s : o.sessions->sessions)
        for (const auto& t : s.turns) {
          cancels = cancels || t.request.cancel_after_ns > 0 || t.request.cancel_after_tokens > 0;
          for (const auto& r : t.subagents) cancels = cancels || r.cancel_after_ns > 0 || r.cancel_after_tokens > 0;
        }
    if (cancels) return InvalidArgument("--cancel-fraction needs --workers 1 (cancels are not carried across workers)");
    if (o.sessions != nullptr && o.sessions->grow_context)
      return InvalidArgument("--dataset multi-turn needs --workers 1 (the answers a session carries are not "
                             "handed across workers)");
    FRONTIER_ASSIGN_OR_RETURN(target, WorkerPool::Create(o.client, o.workers));
  } else {
    FRONTIER_ASSIGN_OR_RETURN(target, HttpTarget::Create(o.client));
  }
  PointOptions point = o;
  if (point.model.empty()) point.model = o.client.model;
  power::PowerOptions power_options = o.power;
  if (!power_options.scrape_url.empty() && !power_options.fetch) {
    const client::ClientOptions client = o.client;
    const std::string url = power_options.scrape_url;
    const Nanos timeout = std::clamp<Nanos>(power_options.interval_ns, 100 * kNanosPerMilli, 5 * kNanosPerSecond);
    power_options.fetch = [client, url, timeout] {
      return client::HttpGet(client, url, timeout, metrics::kMaxPrometheusBytes);
    };
  }
  FRONTIER_ASSIGN_OR_RETURN(power::OpenedPower power, power::OpenPowerSource(power_options));
  point.power = power.source.get();
  point.power_interval_ns = power_options.interval_ns;
  point.effective_settings["power"] = power.source ? power.source->Name() : "off";
  if (!power.note.empty()) point.effective_settings["power_note"] = power.note;
  std::optional<MetricsScraper> scraper;
  if (!o.scrape_metrics_url.empty())
    scraper.emplace(MetricsScraper::Options{o.scrape_metrics_url, o.scrape_period_ns, o.client});
  Result<PointOutcome> out = RunPoint(*target, specs, load, point, observer, stop);
  if (!scraper) return out;
  ServerMetrics m = scraper->Finish();
  if (!out.ok()) return out;
  out->run.server_metrics = std::move(m);
  // The result JSON again, now with the server's account.
  FRONTIER_RETURN_IF_ERROR(WritePointResultJson(point, load, *out));
  return out;
}

}  // namespace frontier::loadgen
