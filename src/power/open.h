// open.h: `--power auto|nvml|amdsmi|rapl|scrape|off` and the plan's `power:`,
// turned into an open PowerSource.
//
//   PowerOptions o;
//   o.kind = *ParsePowerKind("auto");
//   o.scrape_url = "http://gpu-host:9400/metrics";  o.fetch = ...;
//   Result<OpenedPower> p = OpenPowerSource(o);
//   if (p->source) ... sample it ...; else p->note says why none
//
// auto tries, in order: NVML (nvml.h), ROCm SMI (rocm_smi.h), the
// scrape URL when one is given and its exposition carries DCGM's power
// series (dcgm_scrape.h); else no source, and the point says "TDP bound".
// RAPL (the host's CPUs, not its accelerators) is used only when asked for.
// A kind asked for by name that cannot open is an error naming the flag.
//
// Thread safety: pure, except the sources it opens.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"
#include "power/dcgm_scrape.h"
#include "power/source.h"

namespace frontier::power {

enum class PowerKind { kAuto, kNvml, kAmdSmi, kRapl, kScrape, kOff };

// "auto", "nvml", "amdsmi", "rapl", "scrape", "off".
inline constexpr const char* kPowerKinds = "auto, nvml, amdsmi, rapl, scrape or off";
std::optional<PowerKind> ParsePowerKind(std::string_view text);
const char* PowerKindName(PowerKind kind);

// Bounds of the sampling interval, seconds.
inline constexpr double kMinPowerIntervalS = 0.01;
inline constexpr double kMaxPowerIntervalS = 60;

struct PowerOptions {
  PowerKind kind = PowerKind::kAuto;
  Nanos interval_ns = 100 * kNanosPerMilli;  // between readings
  std::string nvml_lib;                      // "" = $FRONTIER_NVML_LIB, else libnvidia-ml.so.1
  std::string rocm_smi_lib;                  // "" = $FRONTIER_ROCM_SMI_LIB, else librocm_smi64.so.1
  std::string powercap_root;                 // "" = $FRONTIER_POWERCAP_ROOT, else /sys/class/powercap
  std::string scrape_url;                    // a DCGM exporter's /metrics; "" = none
  FetchFn fetch;                             // GETs scrape_url (set with it)
};

struct OpenedPower {
  std::unique_ptr<PowerSource> source;  // null: no source (off, or auto found none)
  std::string note;                     // why auto chose what it chose, or why none ("auto: no power source (...)")
};

// Opens the source `o.kind` names (see above). InvalidArgument/Unavailable
// starting "--power <kind>: " when a named kind cannot open.
Result<OpenedPower> OpenPowerSource(const PowerOptions& o);

}  // namespace frontier::power
