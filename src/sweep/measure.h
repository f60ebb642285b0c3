// measure.h: the measurement taken beside a point sent to a server (its
// Prometheus metrics, the GPUs' power), as `frontier bench`'s flags and a
// plan's server system both ask for it: one request, one check, one setup of
// the run's options and one form in a system's stored configuration.
//
//   MeasureRequest m = system.measure;                    // or bench's flags
//   if (std::string bad = MeasureProblem(m); !bad.empty()) ...
//   FRONTIER_RETURN_IF_ERROR(ConfigureMeasurement(m, /*sharded=*/false, &options));
//   config.merge(MeasureConfig(m));                       // the keys a plan would give
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "loadgen/benchmark.h"

namespace frontier::sweep {

// The measurement taken beside a point sent to a server: its Prometheus
// metrics and the GPUs' power. `frontier bench`'s flags give it (each
// field's flag beside it), and so does a plan's server system (its keys
// scrape_metrics, scrape_interval_s, power, power_url, power_interval_s).
struct MeasureRequest {
  // --scrape-metrics, given with or without a URL ("" = --base-url + /metrics); --scrape-interval.
  bool scrape = false;
  std::string scrape_url;
  double scrape_interval_s = 1.0;   // [kMinScrapeIntervalS, kMaxScrapeIntervalS]
  std::string power_kind = "auto";  // --power (power::kPowerKinds)
  std::string power_url;            // --power-url ("" = the scrape URL)
  double power_interval_s = 0.1;    // --power-interval, [power::kMinPowerIntervalS, kMaxPowerIntervalS]
};
inline constexpr double kMinScrapeIntervalS = 0.05, kMaxScrapeIntervalS = 3600;

// "" when the measurement's values fit, else what is wrong, naming the flag:
// the scrape interval, the power source and its interval, --power scrape
// without a URL.
std::string MeasureProblem(const MeasureRequest& request);

// Sets `o`'s scrape of the server's metrics (at o->client.base_url +
// /metrics unless a URL is given) and its power source, and records them in
// its effective settings. With `sharded`, power is off (each shard would
// measure its own host); --power named outright is then an error.
Status ConfigureMeasurement(const MeasureRequest& request, bool sharded, loadgen::BenchOptions* o);


// The plan keys (scrape_metrics, scrape_interval_s, power, power_url,
// power_interval_s) and their values where `request` differs from the
// defaults: a server system's stored configuration, and the lines
// `frontier bench --as-plan` writes.
std::map<std::string, std::string> MeasureConfig(const MeasureRequest& request);

}  // namespace frontier::sweep
