#include "cli/summary_print.h"

#include <algorithm>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "core/terminal_text.h"

namespace frontier::cli {
namespace {

void Row(const std::string& name, const std::string& value) {
  std::cout << fmt::format("{:<42}{}\n", EscapeControls(name), EscapeControls(value));
}
void Num(const std::string& name, double v, int digits = 2) { Row(name, fmt::format("{:.{}f}", v, digits)); }
void Title(const std::string& t) {
  const int pad = std::max<int>(0, 50 - static_cast<int>(t.size()) - 2);
  std::cout << std::string(pad / 2, '-') << ' ' << t << ' ' << std::string(pad - pad / 2, '-') << "\n";
}

void PrintDistribution(const std::string& title, const std::string& short_name,
                       const metrics::Distribution& d) {
  Title(title);
  Num("Mean " + short_name + " (ms):", d.mean);
  Num("Median " + short_name + " (ms):", d.median);
  Num("Std " + short_name + " (ms):", d.std);
  for (const auto& [p, v] : d.percentiles) {
    if (p == 50) continue;
    Num(metrics::PercentileKey(p).replace(0, 1, "P") + " " + short_name + " (ms):", v);
  }
}

}  // namespace

void PrintSummary(const RunResult& run, const metrics::Summary& s) {
  const std::string title =
      run.source == RunSource::kSimulated ? " Serving Benchmark Result (simulated) " : " Serving Benchmark Result ";
  const int pad = std::max<int>(0, 62 - static_cast<int>(title.size()));
  std::cout << std::string(pad / 2, '=') << title << std::string(pad - pad / 2, '=') << "\n";
  if (run.interrupted) Row("Interrupted:", "yes (partial result)");
  Row("Successful requests:", std::to_string(s.completed));
  Row("Failed requests:", std::to_string(s.failed));
  for (const auto& [reason, n] : s.failures_by_reason) Row("  " + reason + ":", std::to_string(n));
  if (s.cancelled) Row("Cancelled requests (excluded):", std::to_string(s.cancelled));
  if (s.warmup) Row("Warm-up requests (excluded):", std::to_string(s.warmup));
  Num("Benchmark duration (s):", s.duration_s);
  Row("Total input tokens:", std::to_string(s.total_input_tokens));
  Row("Total generated tokens:", std::to_string(s.total_output_tokens));
  if (!s.usage_from_server) Row("Token counts:", "counted from stream events (no server usage)");
  Num("Request throughput (req/s):", s.request_throughput);
  if (s.goodput_requested) Num("Request goodput (req/s):", s.request_goodput);
  Num("Output token throughput (tok/s):", s.output_throughput);
  Num("Total token throughput (tok/s):", s.total_token_throughput);
  if (run.num_gpus > 1) {
    Num("Output token throughput per GPU (tok/s):", s.output_throughput_per_gpu);
    Num("Total token throughput per GPU (tok/s):", s.total_token_throughput_per_gpu);
  }
  Row("Peak concurrent requests:", std::to_string(s.max_concurrent_requests));
  Num("Interactivity (tok/s/user):", s.interactivity);
  const metrics::Timeslices& ts = s.timeslices;
  if (ts.steady) {
    Row("Steady state (s):", fmt::format("{:.2f} to {:.2f} of {:.2f} ({} windows of {:g} s)", ts.steady_start_s,
                                         ts.steady_end_s, s.duration_s, ts.slices.size(), ts.slice_s));
    Num("Steady output token throughput (tok/s):", ts.steady_output_throughput);
    Num("Steady request throughput (req/s):", ts.steady_request_throughput);
  } else if (!ts.slices.empty()) {
    Row("Steady state:", fmt::format("none found ({} windows of {:g} s)", ts.slices.size(), ts.slice_s));
  }
  if (s.ideal_prefix_hit_rate >= 0)
    Row("Ideal prefix-cache hit rate:",
        fmt::format("{:.2f}% ({}-token blocks)", 100 * s.ideal_prefix_hit_rate, s.ideal_hit_block_tokens));
  if (s.has_sessions) {
    Title("Sessions");
    Row("Completed sessions:", std::to_string(s.sessions_completed));
    Row("Failed sessions:", std::to_string(s.sessions_failed));
    for (const auto& [reason, n] : s.session_end_reasons) Row("  " + reason + ":", std::to_string(n));
  }
  PrintDistribution("Time to First Token", "TTFT", s.ttft_ms);
  PrintDistribution("Time per Output Token (excl. 1st token)", "TPOT", s.tpot_ms);
  PrintDistribution("Inter-token Latency", "ITL", s.itl_ms);
  PrintDistribution("Inter-chunk Latency", "ICL", s.icl_ms);
  PrintDistribution("End-to-end Latency", "E2EL", s.e2el_ms);
  PrintDistribution("Client Queue Time", "queue", s.client_queue_ms);
  if (s.has_sessions) {
    PrintDistribution("Turn Time to First Token", "turn TTFT", s.turn_ttft_ms);
    PrintDistribution("Turn End-to-end Latency", "turn E2EL", s.turn_e2el_ms);
    PrintDistribution("Session Latency", "session", s.session_latency_ms);
  }
  std::cout << std::string(62, '=') << "\n";
}


void PrintEnergy(const RunResult& run, const metrics::Summary& s) {
  if (!s.energy) {
    std::string why;
    if (auto it = run.effective_settings.find("power_error"); it != run.effective_settings.end()) why = it->second;
    else if (auto n = run.effective_settings.find("power_note"); n != run.effective_settings.end()) why = n->second;
    std::cout << "Energy: not measured; tokens per joule are the " << metrics::kTdpBoundLabel
              << (why.empty() ? "" : " (" + EscapeControls(why) + ")") << "\n";
    return;
  }
  const EnergyMeasurement& e = *s.energy;
  Title("Energy, " + metrics::EnergyLabel(s));
  Row("Method:", e.method + ", " + std::to_string(e.samples) + " readings in the window");
  Num("Energy (J):", e.joules);
  Num("Mean power (W):", e.mean_w);
  Num("Peak power (W):", e.peak_w);
  Num("Tokens per joule (measured):", s.tokens_per_joule);
  Num("Output tokens per joule (measured):", s.output_tokens_per_joule);
  for (const auto& d : e.devices)
    Row("  " + d.name + ":", fmt::format("{:.2f} J, mean {:.2f} W, peak {:.2f} W", d.joules, d.mean_w, d.peak_w));
  if (!e.phases) return;
  const EnergyPhases& p = *e.phases;
  // The windows by what was running (docs/energy.md "By phase").
  const auto line = [](const EnergyPhase& x, const std::string& tokens) {
    return fmt::format("{} windows, {:.2f} s, {:.2f} J, mean {:.2f} W{}", x.windows, x.seconds, x.joules,
                       x.seconds > 0 ? x.joules / x.seconds : 0.0, tokens);
  };
  Row(fmt::format("By phase ({:.3g} s windows):", p.slice_s), "");
  Row("  with prefill:", line(p.prefill, fmt::format(", {} prompt tokens", p.prefill.prompt_tokens)));
  Row("  decode only:", line(p.decode, fmt::format(", {} output tokens", p.decode.output_tokens)));
  Row("  idle:", line(p.idle, ""));
  if (p.decode_joules_per_output_token > 0) Num("Decode J per output token:", p.decode_joules_per_output_token);
  if (p.prefill_joules_per_prompt_token > 0)
    Num("Prefill J per prompt token (estimate):", p.prefill_joules_per_prompt_token);
}

}  // namespace frontier::cli
