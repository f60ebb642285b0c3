#include "loadgen/search_text.h"

#include <cstdio>

#include <fmt/format.h>

#include "core/append_printf.h"
#include "metrics/verdict_label.h"

namespace frontier::loadgen {
std::string SearchHeadline(const SearchOptions& o, const std::string& runner) {
  const bool server = o.goal == SearchGoal::kMaxValidQps;
  std::string rules = "SLO";
  if (server) {
    rules = ScenarioName(*o.rules.scenario);
    if (!o.rules.benchmark.empty()) rules += " (" + o.rules.benchmark + ")";
  }
  std::string line;
  AppendPrintf(line, "search: %s, %s over %s, on %s", SearchGoalName(o.goal), rules.c_str(), SearchAxisName(o.axis),
          runner.c_str());
  return line;
}

std::string TrialRow(const Trial& t, SearchAxis axis) {
  const std::string value =
      axis == SearchAxis::kRate ? fmt::format("{:.4g} req/s", t.value) : fmt::format("conc {:.0f}", t.value);
  const auto& s = t.summary;
  std::string line = fmt::format("trial {:>2}  {:>14}  {:>7}  {:8.2f} req/s {:10.1f} tok/s/GPU {:7.1f} tok/s/user  "
                                 "TTFT p99 {:8.1f} ms  TPOT p99 {:7.2f} ms",
                                 t.index, value, metrics::VerdictLabel(t.verdict.valid), s.request_throughput,
                                 s.output_throughput_per_gpu, s.interactivity, s.ttft_ms.At(99).value_or(0),
                                 s.tpot_ms.At(99).value_or(0));
  if (t.band && t.band->points > 0) line += "  " + t.band->Short();
  if (!t.verdict.valid && !t.verdict.reasons.empty()) line += "\n          " + t.verdict.reasons.front();
  line += "\n          -> " + t.decision;
  return line;
}

std::string SearchAnswerText(const SearchResult& result, const SearchOptions& o) {
  std::string text;
  AppendPrintf(text, "%s after %zu trials\n", result.stop_reason.c_str(), result.trials.size());
  if (!result.best) return text + "no trial was valid\n";
  const bool server = o.goal == SearchGoal::kMaxValidQps;
  const Trial& b = result.trials[*result.best];
  if (server) {
    AppendPrintf(text, "max valid QPS: %.4g (trial %d): %.1f output tok/s, %.1f tok/s/GPU\n", b.value, b.index,
            b.summary.output_throughput, b.summary.output_throughput_per_gpu);
  } else {
    AppendPrintf(text, "best throughput under the SLO: %.1f output tok/s/GPU at %s %.4g (trial %d), %.1f tok/s/user\n",
            b.summary.output_throughput_per_gpu, o.axis == SearchAxis::kRate ? "request rate" : "concurrency",
            b.value, b.index, b.summary.interactivity);
  }
  if (b.band) {
    // How sure the answer is: the simulated throughput's range under the band.
    const double tput = b.summary.output_throughput_per_gpu;
    text += "prediction band: " + b.band->Describe();
    if (b.band->points > 0) AppendPrintf(text, ": %.1f to %.1f output tok/s/GPU", b.band->Lower(tput), b.band->Upper(tput));
    text += "\n";
    if (!b.band->flags.empty()) text += "extrapolates: " + b.band->FlagsText() + "\n";
  }
  ScenarioRules best_rules = o.rules;
  if (server) best_rules.target_qps = b.value;
  return text + FormatVerdict(b.verdict, best_rules);
}

}  // namespace frontier::loadgen
