// hardware_facts.cc: the --price and --price-tier flags.
#include "cli/hardware_facts.h"

namespace frontier::cli {

void AddPriceFlags(CLI::App& app, PriceFlags& flags) {
  app.add_option("--price", flags.prices,
                 "$/GPU-hour for a hardware name, HW=USD (repeatable; overrides the catalog)");
  app.add_option("--price-tier", flags.tier, "Catalog price: neocloud, hyperscaler or three_year")
      ->check(CLI::IsMember({"neocloud", "hyperscaler", "three_year"}))
      ->capture_default_str();
}

}  // namespace frontier::cli
