// hardware_facts.cc: the catalog's price and power of a hardware name.
#include "report/hardware_facts.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <vector>

#include "core/ascii.h"
#include "core/name_table.h"
#include "core/parse.h"
#include "sim/engine/hardware.h"

namespace frontier::report {

std::string HardwareKey(const std::string& hardware) {
  const std::string lower = AsciiLower(hardware);
  if (lower.empty()) return lower;
  // Reports and the dashboard ask once per run: the catalog is read once per name.
  static std::mutex mu;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(lower); it != known.end()) return it->second;
  Result<sim::Hardware> h = sim::LoadHardware(lower);
  return known[lower] = h.ok() ? AsciiLower(h->name) : lower;
}

Result<std::map<std::string, double>> ParsePriceOverrides(const std::vector<std::string>& prices) {
  std::map<std::string, double> out;
  std::map<std::string, std::string> given;  // key -> the flag's text that priced it
  for (const auto& p : prices) {
    const size_t eq = p.find('=');
    const Result<double> usd = ParseNumber("--price", eq == std::string::npos ? "" : p.substr(eq + 1), 0, 1e4);
    const double v = usd.ok() ? *usd : 0;
    if (eq == 0 || !(v > 0)) {
      return InvalidArgument("--price: expected HW=USD with USD in (0, 10000] (e.g. h200=3.5), got '" + p + "'");
    }
    const std::string key = HardwareKey(p.substr(0, eq));
    if (auto seen = given.find(key); seen != given.end() && out[key] != v)
      return InvalidArgument("--price " + seen->second + " and --price " + p + " price one GPU (" + key +
                             ") twice; give one");
    out[key] = v;
    given[key] = p;
  }
  return out;
}

std::optional<HardwareFacts> LookupHardwareFacts(const std::string& hardware, const std::string& tier,
                                                 const std::map<std::string, double>& overrides) {
  const std::string hw = HardwareKey(hardware);
  if (hw.empty()) return std::nullopt;
  HardwareFacts f;
  if (auto h = sim::LoadHardware(hw); h.ok()) {
    f.tdp_w = h->tdp_w;
    f.price_per_gpu_hour = tier == "hyperscaler"  ? h->price.hyperscaler
                           : tier == "three_year" ? h->price.three_year
                                                  : h->price.neocloud;
    f.price_source =
        "catalog data/hardware/" + std::filesystem::path(h->file).filename().string() + " (" + tier + ")";
  }
  if (auto p = overrides.find(hw); p != overrides.end()) {
    f.price_per_gpu_hour = p->second;
    f.price_source = "--price";
  }
  if (f.price_per_gpu_hour > 0 || f.tdp_w > 0) return f;
  return std::nullopt;
}

std::map<std::string, HardwareFacts> HardwareFactsOfRuns(const std::vector<store::RunInfo>& runs,
                                                         const std::string& tier,
                                                         const std::map<std::string, double>& overrides) {
  std::map<std::string, HardwareFacts> out;
  std::set<std::string> hardware;
  for (const auto& r : runs)
    if (r.config.count("hardware") && !r.config.at("hardware").empty())
      hardware.insert(HardwareKey(r.config.at("hardware")));
  for (const auto& hw : hardware) {
    if (auto f = LookupHardwareFacts(hw, tier, overrides)) out[hw] = *f;
  }
  for (const auto& [hw, usd] : overrides) {
    if (!out.count(hw)) out[hw] = {usd, "--price", 0};
  }
  return out;
}

std::string UnusedPriceNote(const Report& report, const std::map<std::string, double>& overrides) {
  std::set<std::string> shown;
  for (const SeriesReport& s : report.series)
    if (!s.hardware.empty()) shown.insert(s.hardware);
  std::vector<std::string> unused;
  for (const auto& [hw, usd] : overrides)
    if (!shown.count(hw)) unused.push_back(hw + "=" + FormatShortest(usd));
  if (unused.empty()) return "";
  return "--price " + JoinNames(unused) + " prices no series: " +
         (shown.empty() ? std::string("no series names its hardware")
                        : "they are on " + JoinNames({shown.begin(), shown.end()}));
}

double RunTdpW(const store::RunInfo& run) {
  auto hw = run.config.find("hardware");
  if (hw == run.config.end() || hw->second.empty()) return 0.0;
  auto f = LookupHardwareFacts(hw->second, "neocloud", {});
  return f ? f->tdp_w : 0.0;
}

}  // namespace frontier::report
