// hardware_facts.h: the price and power of a hardware name for cost and energy
// figures, from the hardware catalog at a price tier with --price overrides:
// one rule for `frontier report` and `frontier dashboard`.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/model.h"

namespace frontier::cli {

struct PriceFlags {
  std::vector<std::string> prices;  // --price HW=USD (repeatable)
  std::string tier = "neocloud";    // --price-tier
};

// Adds --price and --price-tier to `app`.
void AddPriceFlags(CLI::App& app, PriceFlags& flags);

// The --price overrides by lower-case hardware name. InvalidArgument naming
// the bad value.
Result<std::map<std::string, double>> ParsePrices(const PriceFlags& flags);

// The catalog's TDP and tier price for `hardware` (any case), with an override
// taking the price's place; nullopt when neither price nor power is known.
std::optional<report::HardwareFacts> LookupHardwareFacts(const std::string& hardware,
                                                         const std::string& tier,
                                                         const std::map<std::string, double>& overrides);

}  // namespace frontier::cli
