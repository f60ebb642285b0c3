#include "sim/validation.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "metrics/summary.h"
#include "sim/config.h"
#include "sim/internal/json_util.h"
#include "sim/simulate.h"

namespace frontier::sim {

const LengthDistribution* ValidationSet::Dataset(const std::string& name) const {
  for (const auto& d : datasets)
    if (d.name == name) return &d;
  return nullptr;
}

Result<ValidationSet> LoadValidation(const std::string& data_dir) {
  using namespace internal;
  ValidationSet set;
  for (const auto& path : JsonFilesIn(data_dir + "/validation")) {
    FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
    if (j.contains("datasets") && j["datasets"].is_object()) {
      for (auto it = j["datasets"].begin(); it != j["datasets"].end(); ++it) {
        LengthDistribution d;
        d.name = it.key();
        const std::string where = path + ": datasets." + d.name;
        FRONTIER_ASSIGN_OR_RETURN(double samples, Number(*it, "samples", where));
        d.samples = static_cast<int64_t>(samples);
        FRONTIER_ASSIGN_OR_RETURN(d.input_mean, Number(*it, "input_mean", where));
        FRONTIER_ASSIGN_OR_RETURN(d.input_range_ratio, NumberOr(*it, "input_range_ratio", 0, where));
        FRONTIER_ASSIGN_OR_RETURN(d.output_mean, Number(*it, "output_mean", where));
        FRONTIER_ASSIGN_OR_RETURN(d.output_range_ratio, NumberOr(*it, "output_range_ratio", 0, where));
        set.datasets.push_back(d);
      }
    }
    if (!j.contains("results")) continue;
    for (const auto& r : j["results"]) {
      PublishedResult p;
      FRONTIER_ASSIGN_OR_RETURN(p.id, String(r, "id", path));
      const std::string where = path + ": " + p.id;
      p.round = StringOr(r, "round", "");
      FRONTIER_ASSIGN_OR_RETURN(p.scenario, String(r, "scenario", where));
      if (p.scenario != "offline" && p.scenario != "server")
        return InvalidArgument(where + ": scenario must be \"offline\" or \"server\"");
      FRONTIER_ASSIGN_OR_RETURN(p.model, String(r, "model", where));
      FRONTIER_ASSIGN_OR_RETURN(p.hardware, String(r, "hardware", where));
      FRONTIER_ASSIGN_OR_RETURN(p.precision, String(r, "precision", where));
      FRONTIER_ASSIGN_OR_RETURN(p.stack, String(r, "stack", where));
      FRONTIER_ASSIGN_OR_RETURN(p.dataset, String(r, "dataset", where));
      FRONTIER_ASSIGN_OR_RETURN(double gpus, NumberIn(r, "gpus", 1, 1e5, where));
      FRONTIER_ASSIGN_OR_RETURN(double tp, NumberOrIn(r, "tp", 1, 1, 1e5, where));
      p.gpus = static_cast<int>(gpus);
      p.tp = static_cast<int>(tp);
      FRONTIER_ASSIGN_OR_RETURN(p.output_tokens_per_s, NumberIn(r, "output_tokens_per_s", 0, 1e9, where));
      if (r.contains("median_ttft_ms")) {
        FRONTIER_ASSIGN_OR_RETURN(double v, Number(r, "median_ttft_ms", where));
        p.median_ttft_ms = v;
      }
      if (r.contains("median_tpot_ms")) {
        FRONTIER_ASSIGN_OR_RETURN(double v, Number(r, "median_tpot_ms", where));
        p.median_tpot_ms = v;
      }
      FRONTIER_ASSIGN_OR_RETURN(p.ttft_p99_limit_ms, NumberOr(r, "ttft_p99_limit_ms", 0, where));
      FRONTIER_ASSIGN_OR_RETURN(p.tpot_p99_limit_ms, NumberOr(r, "tpot_p99_limit_ms", 0, where));
      if (r.contains("calibrate") && r["calibrate"].is_boolean()) p.calibrate = r["calibrate"].get<bool>();
      if (r.contains("output_tokens_per_s") && r["output_tokens_per_s"].is_object())
        p.source = StringOr(r["output_tokens_per_s"], "source", "");
      set.results.push_back(p);
    }
  }
  for (const auto& r : set.results)
    if (set.Dataset(r.dataset) == nullptr)
      return InvalidArgument("validation result " + r.id + ": unknown dataset '" + r.dataset + "'");
  return set;
}

std::vector<workload::RequestSpec> DrawRequests(const LengthDistribution& d, int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 17);
  auto draw = [&](double mean, double r) {
    const auto lo = std::max<int32_t>(1, static_cast<int32_t>(std::floor(mean * (1 - r))));
    const auto hi = std::max<int32_t>(lo, static_cast<int32_t>(std::ceil(mean * (1 + r))));
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  };
  std::vector<workload::RequestSpec> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    auto& s = out[static_cast<size_t>(i)];
    s.id = i;
    s.input_len = draw(d.input_mean, d.input_range_ratio);
    s.output_len = draw(d.output_mean, d.output_range_ratio);
  }
  return out;
}

namespace {

struct Probe {
  metrics::Summary summary;
  bool meets = false;
};

Result<Probe> RunServer(const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
                        double rate, const PublishedResult& r, uint64_t seed) {
  workload::LoadOptions load;
  load.request_rate = rate;
  load.seed = seed;
  load.num_prompts = static_cast<int64_t>(requests.size());
  FRONTIER_ASSIGN_OR_RETURN(RunResult run, Simulate(config, requests, load));
  metrics::SummaryOptions so;
  so.num_gpus = config.gpus;
  so.percentiles = {50, 99};
  Probe p;
  p.summary = metrics::Summarize(run, so);
  const double ttft99 = p.summary.ttft_ms.At(99).value_or(0);
  const double tpot99 = p.summary.tpot_ms.At(99).value_or(0);
  p.meets = p.summary.failed == 0 && (r.ttft_p99_limit_ms <= 0 || ttft99 <= r.ttft_p99_limit_ms) &&
            (r.tpot_p99_limit_ms <= 0 || tpot99 <= r.tpot_p99_limit_ms);
  return p;
}

}  // namespace

Result<Prediction> Predict(const PublishedResult& r, const ValidationSet& set, const ValidationOptions& o) {
  const LengthDistribution* d = set.Dataset(r.dataset);
  if (d == nullptr) return InvalidArgument("validation result " + r.id + ": unknown dataset " + r.dataset);
  SimSpec spec;
  spec.model = r.model;
  spec.hardware = r.hardware;
  spec.gpus = r.gpus;
  spec.tp = r.tp;
  spec.precision = r.precision;
  spec.stack = r.stack;
  spec.data_dir = o.data_dir;
  FRONTIER_ASSIGN_OR_RETURN(SimConfig config, ResolveSimConfig(spec));
  Prediction out;
  out.published = r;

  const int64_t offline_n = o.offline_requests > 0 ? o.offline_requests : d->samples;
  auto offline_requests = DrawRequests(*d, offline_n, o.seed);
  workload::LoadOptions load;
  load.num_prompts = offline_n;
  FRONTIER_ASSIGN_OR_RETURN(RunResult run, Simulate(config, offline_requests, load));
  metrics::SummaryOptions so;
  so.num_gpus = config.gpus;
  const metrics::Summary offline = metrics::Summarize(run, so);

  if (r.scenario == "offline") {
    out.output_tokens_per_s = offline.output_throughput;
  } else {
    // Bisect the Poisson rate between 0 and the offline request throughput.
    const auto requests = DrawRequests(*d, o.server_requests, o.seed + 1);
    double lo = 0, hi = offline.request_throughput * 1.02;
    std::optional<Probe> best;
    for (int i = 0; i < o.server_probes; ++i) {
      const double mid = (lo + hi) / 2;
      FRONTIER_ASSIGN_OR_RETURN(Probe p, RunServer(config, requests, mid, r, o.seed + 2));
      if (p.meets) {
        lo = mid;
        best = p;
      } else {
        hi = mid;
      }
    }
    if (!best) return FailedPrecondition(r.id + ": no request rate met the latency limits");
    out.request_rate = lo;
    // Sustained throughput at that rate: every request completes (the limits
    // held), so output tokens flow at rate x mean output length. A finite
    // run's own figure would also count its ramp-up and drain.
    double mean_output = 0;
    for (const auto& q : requests) mean_output += q.output_len;
    mean_output /= static_cast<double>(requests.size());
    out.output_tokens_per_s = lo * mean_output;
    out.median_ttft_ms = best->summary.ttft_ms.median;
    out.median_tpot_ms = best->summary.tpot_ms.median;
  }
  out.error = out.output_tokens_per_s / r.output_tokens_per_s - 1.0;
  return out;
}

}  // namespace frontier::sim
