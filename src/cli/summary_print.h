// summary_print.h: the "Serving Benchmark Result" table (vLLM's
// benchmark_serving layout) that `frontier bench` and `frontier simulate`
// print for one point; a simulated run says so in its title. The text is
// metrics/summary_text.h's; these write it.
#pragma once

#include "core/run_result.h"
#include "metrics/summary.h"

namespace frontier::cli {

// To stdout.
void PrintSummary(const RunResult& run, const metrics::Summary& summary);

// The energy lines of a measured point: "Energy (measured (nvml))" with
// joules, mean and peak power, tokens per joule and each device; without a
// measurement one line saying tokens per joule are the TDP bound, and why
// (the effective setting power_error or power_note). To stdout.
void PrintEnergy(const RunResult& run, const metrics::Summary& summary);

}  // namespace frontier::cli
