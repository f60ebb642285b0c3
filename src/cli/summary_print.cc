// summary_print.cc: the result table and energy lines (metrics/summary_text.h) to stdout.
#include "cli/summary_print.h"

#include <iostream>

#include "metrics/summary_text.h"

namespace frontier::cli {

void PrintSummary(const RunResult& run, const metrics::Summary& s) { std::cout << metrics::SummaryText(run, s); }

void PrintEnergy(const RunResult& run, const metrics::Summary& s) { std::cout << metrics::EnergyText(run, s); }

}  // namespace frontier::cli
