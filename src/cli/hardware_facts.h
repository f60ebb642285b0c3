// hardware_facts.h: the --price and --price-tier flags of `frontier report`
// and `frontier dashboard`; the facts they select are report/hardware_facts.h.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace frontier::cli {

struct PriceFlags {
  std::vector<std::string> prices;  // --price HW=USD (repeatable; report::ParsePriceOverrides reads them)
  std::string tier = "neocloud";    // --price-tier
};

// Adds --price and --price-tier to `app`.
void AddPriceFlags(CLI::App& app, PriceFlags& flags);

}  // namespace frontier::cli
