// summary_text.cc: a Summary as vLLM's result table, the energy lines and the failure reasons.
#include "metrics/summary_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/terminal_text.h"

namespace frontier::metrics {
namespace {

// The lines of the table, appended to one string.
struct Text {
  std::string out;
  void Row(const std::string& name, const std::string& value) {
    out += fmt::format("{:<42}{}\n", EscapeControls(name), EscapeControls(value));
  }
  void Num(const std::string& name, double v, int digits = 2) {
    Row(name, fmt::format("{:.{}f}", v, digits));
  }
  void Title(const std::string& t) {
    const int pad = std::max<int>(0, 50 - static_cast<int>(t.size()) - 2);
    out += std::string(pad / 2, '-') + ' ' + t + ' ' + std::string(pad - pad / 2, '-') + "\n";
  }
};

void AddDistribution(Text& w, const std::string& title, const std::string& short_name,
                     const Distribution& d) {
  w.Title(title);
  w.Num("Mean " + short_name + " (ms):", d.mean);
  w.Num("Median " + short_name + " (ms):", d.median);
  w.Num("Std " + short_name + " (ms):", d.std);
  for (const auto& [p, v] : d.percentiles) {
    if (p == 50) continue;
    w.Num(PercentileKey(p).replace(0, 1, "P") + " " + short_name + " (ms):", v);
  }
}

}  // namespace

std::string SummaryText(const RunResult& run, const Summary& s) {
  Text w;
  const std::string title = run.source == RunSource::kSimulated
                                ? " Serving Benchmark Result (simulated) "
                                : " Serving Benchmark Result ";
  const int pad = std::max<int>(0, 62 - static_cast<int>(title.size()));
  w.out = std::string(pad / 2, '=') + title + std::string(pad - pad / 2, '=') + "\n";
  if (run.interrupted) w.Row("Interrupted:", "yes (partial result)");
  w.Row("Successful requests:", std::to_string(s.completed));
  w.Row("Failed requests:", std::to_string(s.failed));
  for (const auto& [reason, n] : s.failures_by_reason)
    w.Row("  " + reason + ":", std::to_string(n));
  if (s.cancelled) w.Row("Cancelled requests (excluded):", std::to_string(s.cancelled));
  if (s.warmup) w.Row("Warm-up requests (excluded):", std::to_string(s.warmup));
  w.Num("Benchmark duration (s):", s.duration_s);
  w.Row("Total input tokens:", std::to_string(s.total_input_tokens));
  w.Row("Total generated tokens:", std::to_string(s.total_output_tokens));
  if (!s.usage_from_server) w.Row("Token counts:", "counted from stream events (no server usage)");
  w.Num("Request throughput (req/s):", s.request_throughput);
  if (s.goodput_requested) w.Num("Request goodput (req/s):", s.request_goodput);
  w.Num("Output token throughput (tok/s):", s.output_throughput);
  w.Num("Total token throughput (tok/s):", s.total_token_throughput);
  if (run.num_gpus > 1) {
    w.Num("Output token throughput per GPU (tok/s):", s.output_throughput_per_gpu);
    w.Num("Total token throughput per GPU (tok/s):", s.total_token_throughput_per_gpu);
  }
  w.Row("Peak concurrent requests:", std::to_string(s.max_concurrent_requests));
  w.Num("Interactivity (tok/s/user):", s.interactivity);
  const Timeslices& ts = s.timeslices;
  if (ts.steady) {
    w.Row("Steady state (s):",
          fmt::format("{:.2f} to {:.2f} of {:.2f} ({} windows of {:g} s)", ts.steady_start_s,
                      ts.steady_end_s, s.duration_s, ts.slices.size(), ts.slice_s));
    w.Num("Steady output token throughput (tok/s):", ts.steady_output_throughput);
    w.Num("Steady request throughput (req/s):", ts.steady_request_throughput);
  } else if (!ts.slices.empty()) {
    w.Row("Steady state:",
          fmt::format("none found ({} windows of {:g} s)", ts.slices.size(), ts.slice_s));
  }
  if (s.ideal_prefix_hit_rate >= 0)
    w.Row("Ideal prefix-cache hit rate:",
          fmt::format("{:.2f}% ({}-token blocks)", 100 * s.ideal_prefix_hit_rate,
                      s.ideal_hit_block_tokens));
  if (s.has_sessions) {
    w.Title("Sessions");
    w.Row("Completed sessions:", std::to_string(s.sessions_completed));
    w.Row("Failed sessions:", std::to_string(s.sessions_failed));
    for (const auto& [reason, n] : s.session_end_reasons)
      w.Row("  " + reason + ":", std::to_string(n));
  }
  AddDistribution(w, "Time to First Token", "TTFT", s.ttft_ms);
  AddDistribution(w, "Time per Output Token (excl. 1st token)", "TPOT", s.tpot_ms);
  AddDistribution(w, "Inter-token Latency", "ITL", s.itl_ms);
  AddDistribution(w, "Inter-chunk Latency", "ICL", s.icl_ms);
  AddDistribution(w, "End-to-end Latency", "E2EL", s.e2el_ms);
  AddDistribution(w, "Client Queue Time", "queue", s.client_queue_ms);
  if (s.has_sessions) {
    AddDistribution(w, "Turn Time to First Token", "turn TTFT", s.turn_ttft_ms);
    AddDistribution(w, "Turn End-to-end Latency", "turn E2EL", s.turn_e2el_ms);
    AddDistribution(w, "Session Latency", "session", s.session_latency_ms);
  }
  w.out += std::string(62, '=') + "\n";
  return w.out;
}

std::string EnergyText(const RunResult& run, const Summary& s) {
  Text w;
  if (!s.energy) {
    std::string why;
    if (auto it = run.effective_settings.find("power_error"); it != run.effective_settings.end())
      why = it->second;
    else if (auto n = run.effective_settings.find("power_note"); n != run.effective_settings.end())
      why = n->second;
    return std::string("Energy: not measured; tokens per joule are the ") + kTdpBoundLabel +
           (why.empty() ? "" : " (" + EscapeControls(why) + ")") + "\n";
  }
  const EnergyMeasurement& e = *s.energy;
  w.Title("Energy, " + EnergyLabel(s));
  w.Row("Method:", e.method + ", " + std::to_string(e.samples) + " readings in the window");
  w.Num("Energy (J):", e.joules);
  w.Num("Mean power (W):", e.mean_w);
  w.Num("Peak power (W):", e.peak_w);
  w.Num("Tokens per joule (measured):", s.tokens_per_joule);
  w.Num("Output tokens per joule (measured):", s.output_tokens_per_joule);
  for (const auto& d : e.devices)
    w.Row("  " + d.name + ":",
          fmt::format("{:.2f} J, mean {:.2f} W, peak {:.2f} W", d.joules, d.mean_w, d.peak_w));
  if (!e.phases) return w.out;
  const EnergyPhases& p = *e.phases;
  // The windows by what was running (docs/energy.md "By phase").
  const auto line = [](const EnergyPhase& x, const std::string& tokens) {
    return fmt::format("{} windows, {:.2f} s, {:.2f} J, mean {:.2f} W{}", x.windows, x.seconds,
                       x.joules, x.seconds > 0 ? x.joules / x.seconds : 0.0, tokens);
  };
  w.Row(fmt::format("By phase ({:.3g} s windows):", p.slice_s), "");
  w.Row("  with prefill:",
        line(p.prefill, fmt::format(", {} prompt tokens", p.prefill.prompt_tokens)));
  w.Row("  decode only:",
        line(p.decode, fmt::format(", {} output tokens", p.decode.output_tokens)));
  w.Row("  idle:", line(p.idle, ""));
  if (p.decode_joules_per_output_token > 0)
    w.Num("Decode J per output token:", p.decode_joules_per_output_token);
  if (p.prefill_joules_per_prompt_token > 0)
    w.Num("Prefill J per prompt token (estimate):", p.prefill_joules_per_prompt_token);
  return w.out;
}

std::string TopFailureReasons(const RunResult& run, size_t top) {
  struct Reason {
    int64_t count = 0;
    std::string example;
  };
  std::map<std::string, Reason> by_reason;
  for (const auto& r : run.requests) {
    if (r.ok || r.warmup) continue;
    Reason& reason = by_reason[r.failure.empty() ? failure::kOther : r.failure];
    if (reason.count++ == 0) reason.example = r.failure_detail;
  }
  std::vector<std::pair<std::string, Reason>> sorted(by_reason.begin(), by_reason.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    // A server's text: one line, no terminal controls.
    const std::string example = EscapeControls(sorted[i].second.example.substr(0, 200));
    out += "  " + std::to_string(sorted[i].second.count) + " " + EscapeControls(sorted[i].first) +
           (example.empty() ? "" : " (" + example + ")") + "\n";
  }
  if (sorted.size() > top) out += "  ... and " + std::to_string(sorted.size() - top) + " other reason(s)\n";
  return out;
}

}  // namespace frontier::metrics
