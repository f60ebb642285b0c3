#include "power/open.h"

#include "core/name_table.h"
#include "power/nvml.h"
#include "power/rapl.h"
#include "power/rocm_smi.h"

namespace frontier::power {

constexpr NameEntry<PowerKind> kPowerKindNames[] = {
    {PowerKind::kAuto, "auto"},   {PowerKind::kNvml, "nvml"},     {PowerKind::kAmdSmi, "amdsmi"},
    {PowerKind::kRapl, "rapl"},   {PowerKind::kScrape, "scrape"}, {PowerKind::kOff, "off"}};

std::optional<PowerKind> ParsePowerKind(std::string_view t) { return ValueOf(kPowerKindNames, t); }

const char* PowerKindName(PowerKind k) { return NameOf(kPowerKindNames, k, "off"); }

namespace {

Result<std::unique_ptr<PowerSource>> OpenScrape(const PowerOptions& o) {
  if (o.scrape_url.empty() || !o.fetch)
    return InvalidArgument("no DCGM exporter URL: give --power-url http://HOST:9400/metrics (or --scrape-metrics "
                           "pointing at one)");
  return OpenDcgmScrape(o.fetch, o.scrape_url);
}

// The source `--power k` asked for by name, or why it failed, naming the flag.
Result<OpenedPower> Chosen(PowerKind k, Result<std::unique_ptr<PowerSource>> s) {
  if (!s.ok())
    return Status(s.status().code(), std::string("--power ") + PowerKindName(k) + ": " + s.status().message());
  OpenedPower out;
  out.source = std::move(*s);
  return out;
}

}  // namespace

Result<OpenedPower> OpenPowerSource(const PowerOptions& o) {
  OpenedPower out;
  switch (o.kind) {
    case PowerKind::kOff:
      out.note = "--power off";
      return out;
    case PowerKind::kNvml: return Chosen(o.kind, OpenNvml(o.nvml_lib));
    case PowerKind::kAmdSmi: return Chosen(o.kind, OpenRocmSmi(o.rocm_smi_lib));
    case PowerKind::kRapl: return Chosen(o.kind, OpenRapl(o.powercap_root));
    case PowerKind::kScrape: return Chosen(o.kind, OpenScrape(o));
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
