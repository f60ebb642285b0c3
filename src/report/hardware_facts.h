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

// The name a hardware is priced, filtered and reported under: the catalog's
// name when `hardware` is that name or one of its aliases, in any case
// ("H100" -> "h100-sxm", "h200-sxm" -> "h200"), else `hardware` in lower
// case (a GPU the catalog lacks keeps its own name). `simulate --hardware
// h100` stores h100-sxm while a plan stores what it says; both read as one.
std::string HardwareKey(const std::string& hardware);

// "HW=USD" overrides (--price) by HardwareKey. InvalidArgument naming the
// bad value, or the two flags that price one GPU under two of its names.
Result<std::map<std::string, double>> ParsePriceOverrides(const std::vector<std::string>& prices);

// The catalog's TDP and `tier` price (neocloud, hyperscaler, three_year) for
// `hardware` (any of its names, HardwareKey), with an override taking the price's place; nullopt
// when neither price nor power is known.
std::optional<HardwareFacts> LookupHardwareFacts(const std::string& hardware, const std::string& tier,
                                                 const std::map<std::string, double>& overrides);

// The facts of every hardware the runs name (by HardwareKey), and of
// every overridden one (its price alone when the catalog lacks it).
std::map<std::string, HardwareFacts> HardwareFactsOfRuns(const std::vector<store::RunInfo>& runs,
                                                         const std::string& tier,
                                                         const std::map<std::string, double>& overrides);

// A note naming each --price whose GPU no series of `report` is on, with the
// GPUs they are on ("--price h300=2.5 prices no series: they are on h100-sxm,
// h200"); "" when every price is used. A price for a GPU the report does not
// show is kept (a later report may); the note says it changed nothing here.
std::string UnusedPriceNote(const Report& report, const std::map<std::string, double>& overrides);

// The catalog TDP of the hardware a run names; 0 when it names none or the
// catalog lacks it.
double RunTdpW(const store::RunInfo& run);

}  // namespace frontier::report
