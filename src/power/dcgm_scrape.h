// dcgm_scrape.h: GPUs' energy and power from a Prometheus exposition, as
// NVIDIA's DCGM exporter (dcgm-exporter) publishes it, for GPUs on another
// host than the client (the usual case).
//
//   auto fetch = [&] { return client::HttpGet(..., "http://gpu-host:9400/metrics", ...); };
//   Result<std::unique_ptr<PowerSource>> s = OpenDcgmScrape(fetch, "http://gpu-host:9400/metrics");
//
// Series read, one device per distinct (Hostname, gpu) label pair:
//   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION  millijoules since boot (the counter)
//   DCGM_FI_DEV_POWER_USAGE               watts (the peak; integrated where
//                                         the counter is missing)
// A device is named "gpu<gpu>" with the modelName label and, when the
// exposition carries several hosts, "<Hostname>/" in front.
//
// The exporter refreshes these values every collection interval of its own
// (dcgm-exporter's -c, 30 s by default): set it at or below --power-interval,
// or the readings are steps that long.
//
// Fails: Unavailable when the first fetch fails or cannot be parsed;
// NotFound when it carries neither series (the message names the URL).
//
// Thread safety: as PowerSource; `fetch` is called on the reader's thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "metrics/prometheus.h"
#include "power/source.h"

namespace frontier::power {

inline constexpr const char* kDcgmEnergy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
inline constexpr const char* kDcgmPower = "DCGM_FI_DEV_POWER_USAGE";

// True when `e` carries either series above.
bool HasDcgmPower(const metrics::Exposition& e);

using FetchFn = std::function<Result<std::string>()>;

Result<std::unique_ptr<PowerSource>> OpenDcgmScrape(FetchFn fetch, const std::string& url);

}  // namespace frontier::power
