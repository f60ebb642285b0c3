#include "power/open.h"

#include "power/nvml.h"
#include "power/rapl.h"
#include "power/rocm_smi.h"

namespace frontier::power {

std::optional<PowerKind> ParsePowerKind(std::string_view t) {
  if (t == "auto") return PowerKind::kAuto;
  if (t == "nvml") return PowerKind::kNvml;
  if (t == "amdsmi") return PowerKind::kAmdSmi;
  if (t == "rapl") return PowerKind::kRapl;
  if (t == "scrape") return PowerKind::kScrape;
  if (t == "off") return PowerKind::kOff;
  return std::nullopt;
}

const char* PowerKindName(PowerKind k) {
  switch (k) {
    case PowerKind::kAuto: return "auto";
    case PowerKind::kNvml: return "nvml";
    case PowerKind::kAmdSmi: return "amdsmi";
    case PowerKind::kRapl: return "rapl";
    case PowerKind::kScrape: return "scrape";
    case PowerKind::kOff: return "off";
  }
  return "off";
}

namespace {

Result<std::unique_ptr<PowerSource>> OpenScrape(const PowerOptions& o) {
  if (o.scrape_url.empty() || !o.fetch)
    return InvalidArgument("no DCGM exporter URL: give --power-url http://HOST:9400/metrics (or --scrape-metrics "
                           "pointing at one)");
  return OpenDcgmScrape(o.fetch, o.scrape_url);
}

Status Named(PowerKind k, const Status& s) {
  return Status(s.code(), std::string("--power ") + PowerKindName(k) + ": " + s.message());
}

}  // namespace

Result<OpenedPower> OpenPowerSource(const PowerOptions& o) {
  OpenedPower out;
  switch (o.kind) {
    case PowerKind::kOff:
      out.note = "--power off";
      return out;
    case PowerKind::kNvml: {
      auto s = OpenNvml(o.nvml_lib);
      if (!s.ok()) return Named(o.kind, s.status());
      out.source = std::move(*s);
      return out;
    }
    case PowerKind::kAmdSmi: {
      auto s = OpenRocmSmi(o.rocm_smi_lib);
      if (!s.ok()) return Named(o.kind, s.status());
      out.source = std::move(*s);
      return out;
    }
    case PowerKind::kRapl: {
      auto s = OpenRapl(o.powercap_root);
      if (!s.ok()) return Named(o.kind, s.status());
      out.source = std::move(*s);
      return out;
    }
    case PowerKind::kScrape: {
      auto s = OpenScrape(o);
      if (!s.ok()) return Named(o.kind, s.status());
      out.source = std::move(*s);
      return out;
    }
    case PowerKind::kAuto:
      break;
  }
  std::string why;
  auto nvml = OpenNvml(o.nvml_lib);
  if (nvml.ok()) {
    out.source = std::move(*nvml);
    out.note = "auto: NVML";
    return out;
  }
  why = nvml.status().message();
  auto amd = OpenRocmSmi(o.rocm_smi_lib);
  if (amd.ok()) {
    out.source = std::move(*amd);
    out.note = "auto: ROCm SMI";
    return out;
  }
  why += "; " + amd.status().message();
  if (!o.scrape_url.empty() && o.fetch) {
    auto scrape = OpenScrape(o);
    if (scrape.ok()) {
      out.source = std::move(*scrape);
      out.note = "auto: DCGM metrics at " + o.scrape_url;
      return out;
    }
    why += "; " + scrape.status().message();
  }
  out.note = "auto: no power source (" + why + ")";
  return out;
}

}  // namespace frontier::power
