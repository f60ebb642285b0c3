// summary_text.h: a point's metrics::Summary as the "Serving Benchmark Result"
// text (vLLM's benchmark_serving layout), its energy lines and the commonest
// reasons its requests failed, which `frontier bench` and `frontier simulate`
// print. Text only; the caller
// writes it. Pure functions, safe from any thread.
#pragma once

#include <cstddef>
#include <string>

#include "core/run_result.h"
#include "metrics/summary.h"

namespace frontier::metrics {

// The result table of one point; a simulated run says so in its title.
std::string SummaryText(const RunResult& run, const Summary& summary);

// The energy lines of a measured point: "Energy (measured (nvml))" with
// joules, mean and peak power, tokens per joule and each device; without a
// measurement one line saying tokens per joule are the TDP bound, and why
// (the effective setting power_error or power_note).
std::string EnergyText(const RunResult& run, const Summary& summary);

// The commonest failure reasons of a run's measured (not warm-up) requests,
// most frequent first, at most `top` of them, one line each:
//   "  1000 rejected (request 0: 131072 input + 128 output tokens exceed ...)"
// with the first request's detail as the example. "" when none failed.
std::string TopFailureReasons(const RunResult& run, size_t top = 3);

}  // namespace frontier::metrics
