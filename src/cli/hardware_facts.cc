#include "cli/hardware_facts.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "core/ascii.h"
#include "sim/engine/hardware.h"

namespace frontier::cli {
namespace {

}  // namespace

void AddPriceFlags(CLI::App& app, PriceFlags& flags) {
  app.add_option("--price", flags.prices,
                 "$/GPU-hour for a hardware name, HW=USD (repeatable; overrides the catalog)");
  app.add_option("--price-tier", flags.tier, "Catalog price: neocloud, hyperscaler or three_year")
      ->check(CLI::IsMember({"neocloud", "hyperscaler", "three_year"}))
      ->capture_default_str();
}

Result<std::map<std::string, double>> ParsePrices(const PriceFlags& flags) {
  std::map<std::string, double> out;
  for (const auto& p : flags.prices) {
    const size_t eq = p.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(p.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || !end || *end != '\0' || !(v > 0 && v <= 1e4)) {
      return InvalidArgument("--price: expected HW=USD with USD in (0, 10000] (e.g. h200=3.5), got '" + p + "'");
    }
    out[AsciiLower(p.substr(0, eq))] = v;
  }
  return out;
}

std::optional<report::HardwareFacts> LookupHardwareFacts(const std::string& hardware,
                                                         const std::string& tier,
                                                         const std::map<std::string, double>& overrides) {
  const std::string hw = AsciiLower(hardware);
  if (hw.empty()) return std::nullopt;
  report::HardwareFacts f;
  if (auto h = sim::LoadHardware(hw); h.ok()) {
    f.tdp_w = h->tdp_w;
    f.price_per_gpu_hour = tier == "hyperscaler"  ? h->price.hyperscaler
                           : tier == "three_year" ? h->price.three_year
                                                  : h->price.neocloud;
    f.price_source = "catalog data/hardware/" + std::filesystem::path(h->file).filename().string() +
                     " (" + tier + ")";
  }
  if (auto p = overrides.find(hw); p != overrides.end()) {
    f.price_per_gpu_hour = p->second;
    f.price_source = "--price";
  }
  if (f.price_per_gpu_hour > 0 || f.tdp_w > 0) return f;
  return std::nullopt;
}

}  // namespace frontier::cli
