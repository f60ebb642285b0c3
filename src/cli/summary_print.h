// summary_print.h: the "Serving Benchmark Result" table (vLLM's
// benchmark_serving layout) that `frontier bench` and `frontier simulate`
// print for one point; a simulated run says so in its title.
#pragma once

#include "core/run_result.h"
#include "metrics/summary.h"

namespace frontier::cli {

// To stdout.
void PrintSummary(const RunResult& run, const metrics::Summary& summary);

}  // namespace frontier::cli
