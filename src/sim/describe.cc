// describe.cc: the simulator's concepts as terminal text (describe.h).
#include "sim/describe.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/append_printf.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"
#include "sim/engine/precision.h"
#include "sim/engine/stack.h"
#include "sim/engine/step_model.h"

namespace frontier::sim {
namespace {

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// " (feed-forward fp8, 2 layers' bf16)" when the MLPs / experts differ from the other weights.
std::string FfnNote(const SimConfig& c) {
  std::string note = std::string(" (feed-forward ") + PrecisionName(c.ffn_precision);
  if (c.model.ffn_unquantized_layers > 0)
    note += ", " + std::to_string(c.model.ffn_unquantized_layers) + " layers' " + PrecisionName(c.precision);
  return note + ")";
}

}  // namespace

std::string DescribeConfig(const SimConfig& c) {
  std::string layout;
  if (c.disagg) {
    auto pool = [](const char* name, const PoolConfig& p) {
      return std::string(name) + " " + std::to_string(p.workers) + " x (tp " + std::to_string(p.tp) + ", dp " +
             std::to_string(p.dp) + ", ep " + std::to_string(p.ep) + ")";
    };
    layout = pool("prefill", c.disagg->prefill) + ", " + pool("decode", c.disagg->decode) + ", KV over " +
             (c.disagg->over_nic ? "the NICs" : "the scale-up fabric");
  } else {
    layout = "tp " + std::to_string(c.tp) + ", ep " + std::to_string(c.ep) + ", dp " + std::to_string(c.dp) +
             (c.attention_dp ? ", attention DP" : "");
  }
  std::string out;
  AppendPrintf(out, "%s on %dx %s (%s), %s weights%s, %s KV cache, stack %s  [simulated]\n", c.model.name.c_str(), c.gpus,
          c.hardware.name.c_str(), layout.c_str(), PrecisionName(c.precision),
          c.ffn_precision != c.precision ? FfnNote(c).c_str() : "", PrecisionName(c.kv_precision),
          c.stack.id().c_str());
  AppendPrintf(out,
          "memory per GPU%s: %.1f GB weights, %.1f GB activations, %.1f GB reserve, %.1f GB KV cache "
          "(%lld tokens in all)\n",
          c.disagg ? " (a decode worker)" : "", c.memory.weights / 1e9, c.memory.activations / 1e9,
          c.memory.runtime_reserve / 1e9, c.memory.kv / 1e9, static_cast<long long>(c.memory.kv_capacity_tokens));
  if (c.spec_tokens > 0)
    AppendPrintf(out, "MTP: %d draft tokens, %.2f tokens per step%s\n", c.spec_tokens, c.acceptance,
            c.acceptance_rate > 0 ? (" (acceptance rate " + Fmt("%.2f", c.acceptance_rate) + " per token)").c_str()
                                  : "");
  return out;
}

std::string ExplainRun(const SimConfig& config, const SimulationStats& st) {
  const StepModel model(config);
  std::string out = "-------------------- Where the time goes --------------------\n";
  AppendPrintf(out, "%lld steps, %.0f tokens and %.1f sequences per step on average, %lld preemptions, peak KV use %.0f%%\n",
          static_cast<long long>(st.steps), st.mean_batch_tokens, st.mean_running,
          static_cast<long long>(st.preemptions), st.peak_kv_usage * 100);
  if (st.busiest_decode.tokens() > 0)
    out += "busiest decode-only step:\n" + ExplainStep(model.Cost(st.busiest_decode), st.busiest_decode);
  if (st.typical_mixed.tokens() > 0)
    out += "last step mixing prefill and decode:\n" + ExplainStep(model.Cost(st.typical_mixed), st.typical_mixed);
  return out;
}

std::string PrefixCacheLine(const SimulationStats& st) {
  std::string out;
  if (st.prefix_queries > 0)
    AppendPrintf(out, "prefix cache: %lld of %lld prompt tokens hit (%.1f%%), %lld blocks evicted\n",
            static_cast<long long>(st.prefix_hits), static_cast<long long>(st.prefix_queries),
            st.prefix_hit_rate() * 100, static_cast<long long>(st.evicted_blocks));
  return out;
}

std::string DescribeCatalogs(const std::string& dir) {
  std::string out;
  auto names = [&](const char* what, const std::vector<std::string>& list) {
    out += what + std::string(":");
    for (const auto& n : list) out += " " + n;
    out += "\n";
  };
  names("models", ListModels(dir));
  names("hardware", ListHardware(dir));
  out += "stacks (name@version, released, default, calibrated on):\n";
  for (const auto& s : ListStackVersions(dir)) {
    std::string on;
    for (const auto& id : s.fitted_to) on += (on.empty() ? "" : ", ") + id;
    AppendPrintf(out, "  %-22s %s %-8s %s\n", s.id().c_str(), s.release_date.c_str(),
            s.default_for_vendor ? s.vendor.c_str() : "",
            s.calibrated_on.empty()
                ? "not calibrated (priors only)"
                : (std::to_string(s.fitted_to.size()) + " points on " + s.calibrated_on + ": " + on).c_str());
    // Which parameters this version fitted, and which it inherits (and whence).
    std::string fitted;
    std::map<std::string, int> inherited;
    for (const auto& [name, origin] : s.origins) {
      if (origin.fitted()) fitted += (fitted.empty() ? "" : ", ") + name;
      if (origin.kind == ParamOrigin::Kind::kInherited) ++inherited[origin.from];
    }
    std::string from;
    for (const auto& [id, n] : inherited) from += (from.empty() ? "" : ", ") + std::to_string(n) + " from " + id;
    if (!fitted.empty()) AppendPrintf(out, "  %-22s   fitted: %s\n", "", fitted.c_str());
    if (!from.empty()) AppendPrintf(out, "  %-22s   inherited: %s\n", "", from.c_str());
  }
  out += "catalogs read from " + dir + " (set FRONTIER_DATA_DIR to change)\n";
  return out;
}

std::string SweepTableHeader() {
  std::string out;
  AppendPrintf(out, "%6s %7s %9s %11s %11s %9s %9s %9s %9s %9s %9s %9s  %s\n", "conc", "prompts", "req/s", "out tok/s",
          "tok/s/GPU", "tok/s/usr", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "E2EL p50", "E2EL p99", "pareto");
  return out;
}

std::string SweepTable(const std::vector<SweepPoint>& points) {
  std::string out;
  bool any_capped = false;
  for (const auto& p : points) {
    const auto& s = p.summary;
    any_capped = any_capped || p.capped;
    AppendPrintf(out, "%6lld %7lld %9.2f %11.1f %11.1f %9.1f %9.1f %9.1f %9.2f %9.2f %9.1f %9.1f  %s%s\n",
            static_cast<long long>(p.concurrency), static_cast<long long>(p.num_prompts), s.request_throughput,
            s.output_throughput, s.output_throughput_per_gpu, s.interactivity, s.ttft_ms.median,
            s.ttft_ms.At(99).value_or(0), s.tpot_ms.median, s.tpot_ms.At(99).value_or(0), s.e2el_ms.median,
            s.e2el_ms.At(99).value_or(0), p.pareto ? "*" : "", p.capped ? " capped" : "");
  }
  out += "(* = Pareto-optimal: no other point has both more output tok/s/GPU and more tok/s/user)\n";
  if (any_capped)
    AppendPrintf(out,
            "(capped = the engine runs at most %lld sequences (max_num_seqs x dp); the rest of the concurrency "
            "queues: --max-num-seqs auto raises the cap to each value)\n",
            static_cast<long long>(points.front().max_running));
  return out;
}

std::string ExplainSweep(const SimConfig& config, const std::vector<SweepPoint>& points) {
  const StepModel model(config);
  std::string out;
  for (const auto& p : points) {
    const auto& shape = p.stats.busiest_decode;
    if (shape.tokens() == 0) continue;
    const StepCost cost = model.Cost(shape);
    AppendPrintf(out,
            "conc %lld: largest decode step %lld seqs, %.2f ms, %s-bound (compute %.0f%%, memory %.0f%%, "
            "communication %.0f%%, overhead %.0f%%)\n",
            static_cast<long long>(p.concurrency), static_cast<long long>(shape.decode_seqs), cost.time_s * 1e3,
            ResourceName(cost.bound), 100 * cost.compute_s / cost.time_s, 100 * cost.memory_s / cost.time_s,
            100 * cost.comm_s / cost.time_s, 100 * cost.overhead_s / cost.time_s);
  }
  return out;
}

std::string DescribeSearch(const SearchResult& r) {
  std::string out = "deployments tried:\n";
  for (const auto& c : r.candidates) {
    if (!c.skipped.empty()) {
      const std::string why = c.skipped.size() > 100 ? c.skipped.substr(0, 97) + "..." : c.skipped;
      AppendPrintf(out, "  %-36s skipped: %s\n", c.label.c_str(), why.c_str());
      continue;
    }
    double best = 0;
    for (const auto& p : c.points) best = std::max(best, p.summary.output_throughput_per_gpu);
    AppendPrintf(out, "  %-36s %zu points, up to %.1f tok/s/GPU\n", c.label.c_str(), c.points.size(), best);
  }
  out += "best deployment at each interactivity (the Pareto frontier across all of them):\n";
  AppendPrintf(out, "%10s %11s %6s  %s\n", "tok/s/usr", "tok/s/GPU", "conc", "deployment");
  for (const auto& f : r.frontier)
    AppendPrintf(out, "%10.1f %11.1f %6lld  %s\n", f.point.summary.interactivity, f.point.summary.output_throughput_per_gpu,
            static_cast<long long>(f.point.concurrency), f.deployment.c_str());
  return out;
}

}  // namespace frontier::sim
