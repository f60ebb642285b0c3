// measure.cc: the measurement's check, its setup and its configuration keys.
#include "sweep/measure.h"

#include <optional>

#include <fmt/format.h>

#include "core/parse.h"
#include "power/open.h"

namespace frontier::sweep {

Status ConfigureMeasurement(const MeasureRequest& r, bool sharded, loadgen::BenchOptions* o) {
  if (r.scrape) {
    std::string base = o->client.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    o->scrape_metrics_url = r.scrape_url.empty() ? base + "/metrics" : r.scrape_url;
    o->scrape_period_ns = static_cast<Nanos>(r.scrape_interval_s * kNanosPerSecond);
    o->effective_settings["scrape_metrics"] = o->scrape_metrics_url;
    o->effective_settings["scrape_interval_s"] = std::to_string(r.scrape_interval_s);
  }
  o->power.kind = *power::ParsePowerKind(r.power_kind);
  o->power.interval_ns = static_cast<Nanos>(r.power_interval_s * kNanosPerSecond);
  o->power.scrape_url = !r.power_url.empty() ? r.power_url : o->scrape_metrics_url;
  if (sharded && o->power.kind != power::PowerKind::kOff) {
    // Every shard would measure its own host's GPUs and `bench merge` does not join energies.
    if (o->power.kind != power::PowerKind::kAuto)
      return InvalidArgument("--power with --shard: measure energy in a run without shards, or give --power off");
    o->power.kind = power::PowerKind::kOff;
  }
  return Status::Ok();
}

std::string MeasureProblem(const MeasureRequest& r) {
  if (!(r.scrape_interval_s >= kMinScrapeIntervalS && r.scrape_interval_s <= kMaxScrapeIntervalS))
    return fmt::format("--scrape-interval must be a number of seconds in [{}, {}], got {}", kMinScrapeIntervalS,
                       kMaxScrapeIntervalS, r.scrape_interval_s);
  const std::optional<power::PowerKind> power_choice = power::ParsePowerKind(r.power_kind);
  if (!power_choice)
    return "--power must be one of " + std::string(power::kPowerKinds) + ", got '" + r.power_kind + "'";
  if (!(r.power_interval_s >= power::kMinPowerIntervalS && r.power_interval_s <= power::kMaxPowerIntervalS))
    return fmt::format("--power-interval must be a number of seconds in [{}, {}], got {}", power::kMinPowerIntervalS,
                       power::kMaxPowerIntervalS, r.power_interval_s);
  if (*power_choice == power::PowerKind::kScrape && r.power_url.empty() && !r.scrape)
    return "--power scrape needs --power-url http://HOST:9400/metrics (a DCGM exporter)";
  return "";
}

std::map<std::string, std::string> MeasureConfig(const MeasureRequest& m) {
  std::map<std::string, std::string> c;
  const MeasureRequest defaults;
  if (m.scrape) c["scrape_metrics"] = m.scrape_url.empty() ? "true" : m.scrape_url;
  if (m.scrape_interval_s != defaults.scrape_interval_s) c["scrape_interval_s"] = FormatShortest(m.scrape_interval_s);
  if (m.power_kind != defaults.power_kind) c["power"] = m.power_kind;
  if (!m.power_url.empty()) c["power_url"] = m.power_url;
  if (m.power_interval_s != defaults.power_interval_s) c["power_interval_s"] = FormatShortest(m.power_interval_s);
  return c;
}

}  // namespace frontier::sweep
