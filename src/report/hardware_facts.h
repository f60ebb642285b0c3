// hardware_facts.h: the price and power of a hardware name for cost and
// energy figures, from the hardware catalog at a price tier with --price
// overrides: one rule for `frontier report`, `compare` and `dashboard`.
//
// Thread safety: the lookups read catalog files; safe from any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/model.h"
#include "store/store.h"

namespace frontier::report {

// "HW=USD" overrides (--price) by lower-case hardware name. InvalidArgument
// naming the bad value.
Result<std::map<std::string, double>> ParsePriceOverrides(const std::vector<std::string>& prices);

// The catalog's TDP and `tier` price (neocloud, hyperscaler, three_year) for
// `hardware` (any case), with an override taking the price's place; nullopt
// when neither price nor power is known.
std::optional<HardwareFacts> LookupHardwareFacts(const std::string& hardware, const std::string& tier,
                                                 const std::map<std::string, double>& overrides);

// The facts of every hardware the runs name (by lower-case name), and of
// every overridden one (its price alone when the catalog lacks it).
std::map<std::string, HardwareFacts> HardwareFactsOfRuns(const std::vector<store::RunInfo>& runs,
                                                         const std::string& tier,
                                                         const std::map<std::string, double>& overrides);

// The catalog TDP of the hardware a run names; 0 when it names none or the
// catalog lacks it.
double RunTdpW(const store::RunInfo& run);

}  // namespace frontier::report
