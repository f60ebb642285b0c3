// `frontier simulate`: predict a serving benchmark on catalogued hardware.
// Parsing and printing only; the simulator lives in src/sim.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/workload_flags.h"
#include "core/clock.h"
#include "loadgen/verdict.h"
#include "metrics/result_json.h"
#include "sim/concurrency_sweep.h"
#include "sim/config.h"
#include "sim/data_dir.h"
#include "sim/deployment_search.h"
#include "sim/simulate.h"
#include "sim/step_model.h"
#include "workload/dataset.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "simulate";

struct SimFlags {
  std::string concurrency;
  double client_rtt_us = kDefaultClientRttUs;
  bool explain = false, list = false, best_deployment = false, search_disagg = false;
};

Result<std::vector<int64_t>> ParseList(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || v < 1)
      return InvalidArgument("--concurrency takes comma-separated integers >= 1, got '" + text + "'");
    out.push_back(v);
  }
  if (out.empty()) return InvalidArgument("--concurrency takes comma-separated integers >= 1");
  return out;
}

// "out.json" -> "out.c16.json" for one point of a sweep.
std::string PointPath(const std::string& path, int64_t c) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  const std::string tag = ".c" + std::to_string(c);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void PrintConfig(const sim::SimConfig& c) {
  std::string layout;
  if (c.disagg) {
    auto pool = [](const char* name, const sim::PoolConfig& p) {
      return std::string(name) + " " + std::to_string(p.workers) + " x (tp " + std::to_string(p.tp) + ", dp " +
             std::to_string(p.dp) + ", ep " + std::to_string(p.ep) + ")";
    };
    layout = pool("prefill", c.disagg->prefill) + ", " + pool("decode", c.disagg->decode) + ", KV over " +
             (c.disagg->over_nic ? "the NICs" : "the scale-up fabric");
  } else {
    layout = "tp " + std::to_string(c.tp) + ", ep " + std::to_string(c.ep) + ", dp " + std::to_string(c.dp) +
             (c.attention_dp ? ", attention DP" : "");
  }
  std::printf("%s on %dx %s (%s), %s weights%s, %s KV cache, stack %s  [simulated]\n", c.model.name.c_str(), c.gpus,
              c.hardware.name.c_str(), layout.c_str(), sim::PrecisionName(c.precision),
              c.expert_precision != c.precision
                  ? (std::string(" (experts ") + sim::PrecisionName(c.expert_precision) + ")").c_str()
                  : "",
              sim::PrecisionName(c.kv_precision), c.stack.id().c_str());
  std::printf("memory per GPU%s: %.1f GB weights, %.1f GB activations, %.1f GB reserve, %.1f GB KV cache "
              "(%lld tokens in all)\n",
              c.disagg ? " (a decode worker)" : "", c.memory.weights / 1e9, c.memory.activations / 1e9,
              c.memory.runtime_reserve / 1e9, c.memory.kv / 1e9, static_cast<long long>(c.memory.kv_capacity_tokens));
  if (c.spec_tokens > 0)
    std::printf("MTP: %d draft tokens, %.2f tokens per step%s\n", c.spec_tokens, c.acceptance,
                c.acceptance_rate > 0 ? (" (acceptance rate " + Fmt("%.2f", c.acceptance_rate) + " per token)").c_str()
                                      : "");
}

void PrintSummary(const metrics::Summary& s, const std::vector<double>& percentiles) {
  auto line = [](const char* name, double v, const char* fmt = "%.2f") {
    std::printf("%-40s %s\n", name, Fmt(fmt, v).c_str());
  };
  std::printf("============ Serving Benchmark Result (simulated) ============\n");
  line("Successful requests:", static_cast<double>(s.completed), "%.0f");
  line("Failed requests:", static_cast<double>(s.failed), "%.0f");
  line("Benchmark duration (s):", s.duration_s);
  line("Total input tokens:", static_cast<double>(s.total_input_tokens), "%.0f");
  line("Total generated tokens:", static_cast<double>(s.total_output_tokens), "%.0f");
  line("Request throughput (req/s):", s.request_throughput);
  line("Output token throughput (tok/s):", s.output_throughput);
  line("Total token throughput (tok/s):", s.total_token_throughput);
  line("Output token throughput per GPU (tok/s):", s.output_throughput_per_gpu);
  line("Interactivity (tok/s/user):", s.interactivity);
  line("Max concurrent requests:", static_cast<double>(s.max_concurrent_requests), "%.0f");
  auto dist = [&](const char* title, const char* key, const metrics::Distribution& d) {
    std::printf("-------------------- %s --------------------\n", title);
    std::printf("%-40s %.2f\n", (std::string("Mean ") + key + " (ms):").c_str(), d.mean);
    std::printf("%-40s %.2f\n", (std::string("Median ") + key + " (ms):").c_str(), d.median);
    for (double p : percentiles)
      std::printf("%-40s %.2f\n", (metrics::PercentileKey(p) + " " + key + " (ms):").c_str(), d.At(p).value_or(0));
  };
  dist("Time to First Token", "TTFT", s.ttft_ms);
  dist("Time per Output Token (excl. 1st token)", "TPOT", s.tpot_ms);
  dist("Inter-token Latency", "ITL", s.itl_ms);
  dist("End-to-end Latency", "E2EL", s.e2el_ms);
  std::printf("==============================================================\n");
}

void PrintExplain(const sim::SimConfig& config, const sim::SimulationStats& st) {
  const sim::StepModel model(config);
  std::printf("-------------------- Where the time goes --------------------\n");
  std::printf("%lld steps, %.0f tokens and %.1f sequences per step on average, %lld preemptions, "
              "peak KV use %.0f%%\n",
              static_cast<long long>(st.steps), st.mean_batch_tokens, st.mean_running,
              static_cast<long long>(st.preemptions), st.peak_kv_usage * 100);
  if (st.busiest_decode.tokens() > 0) {
    std::printf("busiest decode-only step:\n%s",
                sim::ExplainStep(model.Cost(st.busiest_decode), st.busiest_decode).c_str());
  }
  if (st.typical_mixed.tokens() > 0) {
    std::printf("last step mixing prefill and decode:\n%s",
                sim::ExplainStep(model.Cost(st.typical_mixed), st.typical_mixed).c_str());
  }
}

nlohmann::json ExtraFields(const ResolvedWorkload& w, const sim::SimConfig& c, std::optional<int64_t> conc) {
  nlohmann::json extra;
  extra["backend"] = "frontier-simulate";
  extra["model_id"] = c.model.name;
  extra["num_prompts"] = w.load.num_prompts;
  if (std::isinf(w.load.request_rate)) {
    extra["request_rate"] = "inf";
  } else {
    extra["request_rate"] = w.load.request_rate;
  }
  extra["burstiness"] = w.load.burstiness;
  if (conc) {
    extra["max_concurrency"] = *conc;
  } else {
    extra["max_concurrency"] = nullptr;
  }
  return extra;
}

Status WriteOutputs(const std::string& json_path, const std::string& jsonl_path, const RunResult& run,
                    const metrics::Summary& s, const ResolvedWorkload& w, const sim::SimConfig& c,
                    std::optional<int64_t> conc, const std::optional<nlohmann::json>& verdict = std::nullopt) {
  if (!json_path.empty()) {
    nlohmann::json extra = ExtraFields(w, c, conc);
    if (verdict) extra["verdict"] = *verdict;
    FRONTIER_RETURN_IF_ERROR(metrics::WriteResultJson(json_path, run, s, w.summary, &extra));
  }
  if (!jsonl_path.empty()) {
    metrics::RequestJsonlWriter out;
    FRONTIER_RETURN_IF_ERROR(out.Open(jsonl_path));
    for (const auto& r : run.requests) FRONTIER_RETURN_IF_ERROR(out.Write(r));
    FRONTIER_RETURN_IF_ERROR(out.Close());
  }
  return Status::Ok();
}

void PrintCatalogs(const std::string& dir) {
  auto print = [](const char* what, const std::vector<std::string>& names) {
    std::printf("%s:", what);
    for (const auto& n : names) std::printf(" %s", n.c_str());
    std::printf("\n");
  };
  print("models", sim::ListModels(dir));
  print("hardware", sim::ListHardware(dir));
  std::printf("stacks (name@version, released, default, calibrated on):\n");
  for (const auto& s : sim::ListStackVersions(dir)) {
    std::string on;
    for (const auto& id : s.fitted_to) on += (on.empty() ? "" : ", ") + id;
    std::printf("  %-22s %s %-8s %s\n", s.id().c_str(), s.release_date.c_str(),
                s.default_for_vendor ? s.vendor.c_str() : "",
                s.calibrated_on.empty() ? "not calibrated (priors only)"
                                        : (std::to_string(s.fitted_to.size()) + " points on " + s.calibrated_on +
                                           ": " + on).c_str());
    // Which parameters this version fitted, and which it inherits (and whence).
    std::string fitted;
    std::map<std::string, int> inherited;
    for (const auto& [name, origin] : s.origins) {
      if (origin.fitted()) fitted += (fitted.empty() ? "" : ", ") + name;
      if (origin.kind == sim::ParamOrigin::Kind::kInherited) ++inherited[origin.from];
    }
    std::string from;
    for (const auto& [id, n] : inherited) from += (from.empty() ? "" : ", ") + std::to_string(n) + " from " + id;
    if (!fitted.empty()) std::printf("  %-22s   fitted: %s\n", "", fitted.c_str());
    if (!from.empty()) std::printf("  %-22s   inherited: %s\n", "", from.c_str());
  }
  std::printf("catalogs read from %s (set FRONTIER_DATA_DIR to change)\n", dir.c_str());
}

int BestDeployment(const sim::SimSpec& spec, const std::vector<workload::RequestSpec>& requests,
                   const ResolvedWorkload& w, const std::vector<int64_t>& levels, const metrics::SummaryOptions& so,
                   const sim::SweepOptions& sweep, bool disagg) {
  sim::DeploymentSearch search;
  search.base = spec;
  search.requests = requests;
  search.load = w.load;
  search.concurrencies = levels;
  search.summary = so;
  search.sweep = sweep;
  search.disaggregated = disagg;
  Result<sim::SearchResult> r = sim::SearchDeployments(search);
  if (!r.ok()) return Fail(kCmd, r.status());
  std::printf("deployments tried:\n");
  for (const auto& c : r->candidates) {
    if (!c.skipped.empty()) {
      const std::string why = c.skipped.size() > 100 ? c.skipped.substr(0, 97) + "..." : c.skipped;
      std::printf("  %-36s skipped: %s\n", c.label.c_str(), why.c_str());
      continue;
    }
    double best = 0;
    for (const auto& p : c.points) best = std::max(best, p.summary.output_throughput_per_gpu);
    std::printf("  %-36s %zu points, up to %.1f tok/s/GPU\n", c.label.c_str(), c.points.size(), best);
  }
  std::printf("best deployment at each interactivity (the Pareto frontier across all of them):\n");
  std::printf("%10s %11s %6s  %s\n", "tok/s/usr", "tok/s/GPU", "conc", "deployment");
  for (const auto& f : r->frontier)
    std::printf("%10.1f %11.1f %6lld  %s\n", f.point.summary.interactivity, f.point.summary.output_throughput_per_gpu,
                static_cast<long long>(f.point.concurrency), f.deployment.c_str());
  return 0;
}

int RunSimulate(int argc, char** argv) {
  CLI::App app{"Predict a serving benchmark of a catalogued model on catalogued hardware", kCmd};
  SimFlags f;
  WorkloadFlags wf;
  sim::SimSpec spec;
  AddSimSpecFlags(app, &spec);
  app.add_option("--concurrency", f.concurrency, "Sweep: comma-separated max concurrencies, one run each")->group("Load");
  AddClientRttFlag(app, &f.client_rtt_us);
  app.add_flag("--explain", f.explain, "Print where a step's time goes and what bounds it")->group("Output");
  app.add_flag("--list", f.list, "List the catalogued models, hardware and stack versions, then exit")->group("Output");
  app.add_flag("--best-deployment", f.best_deployment,
               "With --concurrency and --gpus: sweep every layout of the GPUs (TP, DP, EP, attention DP) and print "
               "the best deployment at each interactivity")
      ->group("Load");
  app.add_flag("--search-disagg", f.search_disagg,
               "With --best-deployment: also try disaggregated prefill / decode splits")
      ->group("Load");
  AddWorkloadFlags(app, &wf);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (f.list) {
    PrintCatalogs(sim::DefaultDataDir());
    return 0;
  }
  if (!app.count("--model")) return UsageError(kCmd, "--model is required (frontier simulate --list shows the catalog)");
  if (!app.count("--hardware"))
    return UsageError(kCmd, "--hardware is required (frontier simulate --list shows the catalog)");
  Result<Nanos> rtt = ClientRttNanos(f.client_rtt_us);
  if (!rtt.ok()) return Fail(kCmd, rtt.status());
  sim::SimulateOptions sim_options;
  sim_options.client_rtt_ns = *rtt;

  if (f.best_deployment) {
    // Every layout is resolved by the search; the one the flags name need not fit.
    if (spec.gpus < 1) return UsageError(kCmd, "--best-deployment needs --gpus (the GPUs to lay out)");
    if (app.count("--tp") || app.count("--dp") || app.count("--ep") || spec.attention_dp || spec.disaggregated())
      return UsageError(kCmd, "--best-deployment tries every layout itself: leave out --tp, --dp, --ep, "
                              "--attention-dp and the pool flags");
  }
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  if (!config.ok() && f.best_deployment) {
    // Stand-in for the workload's vocabulary and the GPU count; not simulated.
    Result<sim::ModelSpec> model = sim::LoadModel(spec.model, spec.data_dir.empty() ? sim::DefaultDataDir() : spec.data_dir);
    if (!model.ok()) return Fail(kCmd, model.status());
    sim::SimConfig stand_in;
    stand_in.model = *model;
    stand_in.gpus = spec.gpus;
    config = stand_in;
  }
  if (!config.ok()) return Fail(kCmd, config.status());

  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  auto rules = ResolveScenarioRules(*w, sim::DefaultDataDir(), config->model.name);
  if (!rules.ok()) return Fail(kCmd, rules.status());
  if (*rules) {
    if (!f.concurrency.empty())
      return UsageError(kCmd, "--concurrency runs a sweep; judge one point at a time, or use frontier search");
    if (Status s = ApplyScenarioLoad(**rules, &*w); !s.ok()) return Fail(kCmd, s);
  }
  if (Status s = UseSimulatedSystem(*config, app.count("--num-gpus") > 0, &*w); !s.ok()) return Fail(kCmd, s);
  std::vector<int64_t> levels;
  if (!f.concurrency.empty()) {
    Result<std::vector<int64_t>> parsed = ParseList(f.concurrency);
    if (!parsed.ok()) return Fail(kCmd, parsed.status());
    levels = *parsed;
    if (app.count("--max-concurrency"))
      return UsageError(kCmd, "--concurrency runs one point per value; leave out --max-concurrency");
    if (app.count("--duration"))
      return UsageError(kCmd, "--concurrency sizes each point by requests (at least 4x the concurrency); leave out "
                              "--duration");
    // Each point sends at least 4x its concurrency: draw enough for the largest.
    const int64_t most = sim::SweepPrompts(w->load.num_prompts, *std::max_element(levels.begin(), levels.end()));
    w->dataset.num_prompts = std::max<int64_t>(w->dataset.num_prompts, most + w->load.warmup);
  } else if (f.best_deployment) {
    return UsageError(kCmd, "--best-deployment sweeps: give --concurrency 1,2,4,...");
  }
  if (spec.max_num_seqs_auto) {
    if (!f.concurrency.empty()) {
      // Raised per point by the sweep.
    } else if (w->load.max_concurrency) {
      Result<sim::SimConfig> raised = sim::WithMaxNumSeqs(
          *config, static_cast<int>((*w->load.max_concurrency + config->dp - 1) / config->dp));
      if (!raised.ok()) return Fail(kCmd, raised.status());
      *config = *raised;
    } else {
      return UsageError(kCmd, "--max-num-seqs auto raises the cap to the offered concurrency: give --concurrency or "
                              "--max-concurrency, or a number");
    }
  }
  Result<std::vector<workload::RequestSpec>> requests = workload::LoadDataset(w->dataset);
  if (!requests.ok()) return Fail(kCmd, requests.status());

  auto stamp = [&](RunResult& run) {
    run.command_line = CommandLine(argc, argv);
    run.start_time_utc = UtcTimestampNow();
    run.requested_settings = w->requested;
    std::vector<std::string> flags = SimSpecFlagNames();
    flags.insert(flags.end(), {"--concurrency", "--client-rtt-us"});
    for (const auto& [k, v] : GivenFlags(app, flags)) run.requested_settings[k] = v;
    for (const auto& [k, v] : w->effective) run.effective_settings[k] = v;
  };

  if (!f.best_deployment) PrintConfig(*config);
  if (f.concurrency.empty()) {
    sim::SimulationStats st;
    Result<RunResult> run = sim::Simulate(*config, *requests, w->load, sim_options, &st);
    if (!run.ok()) return Fail(kCmd, run.status());
    stamp(*run);
    const metrics::Summary s = metrics::Summarize(*run, w->summary);
    PrintSummary(s, w->summary.percentiles);
    if (f.explain) PrintExplain(*config, st);
    std::optional<nlohmann::json> verdict;
    if (*rules) {
      const loadgen::Verdict v = loadgen::Judge(*run, **rules, s, loadgen::OriginFor(w->load));
      std::printf("%s", loadgen::FormatVerdict(v, **rules).c_str());
      verdict = loadgen::VerdictJson(v, **rules);
    }
    if (Status ws = WriteOutputs(w->result_json, w->requests_jsonl, *run, s, *w, *config, w->load.max_concurrency,
                                 verdict);
        !ws.ok())
      return Fail(kCmd, ws);
    return 0;
  }

  metrics::SummaryOptions so = w->summary;
  for (double p : {50.0, 99.0})
    if (std::find(so.percentiles.begin(), so.percentiles.end(), p) == so.percentiles.end()) so.percentiles.push_back(p);
  sim::SweepOptions sweep(sim_options);
  sweep.max_num_seqs_auto = spec.max_num_seqs_auto;
  if (f.best_deployment) return BestDeployment(spec, *requests, *w, levels, so, sweep, f.search_disagg);

  std::printf("%6s %7s %9s %11s %11s %9s %9s %9s %9s %9s %9s %9s  %s\n", "conc", "prompts", "req/s", "out tok/s",
              "tok/s/GPU", "tok/s/usr", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "E2EL p50", "E2EL p99",
              "pareto");
  auto on_point = [&](const sim::SweepPoint& p, const RunResult& run_in) -> Status {
    RunResult run = run_in;
    stamp(run);
    const std::string json = w->result_json.empty() ? "" : PointPath(w->result_json, p.concurrency);
    const std::string jsonl = w->requests_jsonl.empty() ? "" : PointPath(w->requests_jsonl, p.concurrency);
    return WriteOutputs(json, jsonl, run, p.summary, *w, *config, p.concurrency);
  };
  Result<std::vector<sim::SweepPoint>> swept =
      sim::SweepConcurrency(*config, *requests, w->load, levels, so, sweep, on_point);
  if (!swept.ok()) return Fail(kCmd, swept.status());
  const std::vector<sim::SweepPoint>& points = *swept;
  bool any_capped = false;
  for (const auto& p : points) {
    const auto& s = p.summary;
    any_capped = any_capped || p.capped;
    std::printf("%6lld %7lld %9.2f %11.1f %11.1f %9.1f %9.1f %9.1f %9.2f %9.2f %9.1f %9.1f  %s%s\n",
                static_cast<long long>(p.concurrency), static_cast<long long>(p.num_prompts), s.request_throughput,
                s.output_throughput, s.output_throughput_per_gpu, s.interactivity, s.ttft_ms.median,
                s.ttft_ms.At(99).value_or(0), s.tpot_ms.median, s.tpot_ms.At(99).value_or(0), s.e2el_ms.median,
                s.e2el_ms.At(99).value_or(0), p.pareto ? "*" : "", p.capped ? " capped" : "");
  }
  std::printf("(* = Pareto-optimal: no other point has both more output tok/s/GPU and more tok/s/user)\n");
  if (any_capped)
    std::printf("(capped = the engine runs at most %lld sequences (max_num_seqs x dp); the rest of the concurrency "
                "queues: --max-num-seqs auto raises the cap to each value)\n",
                static_cast<long long>(points.front().max_running));
  if (f.explain) {
    const sim::StepModel model(*config);
    for (const auto& p : points) {
      const auto& shape = p.stats.busiest_decode;
      if (shape.tokens() == 0) continue;
      const sim::StepCost cost = model.Cost(shape);
      std::printf("conc %lld: largest decode step %lld seqs, %.2f ms, %s-bound (compute %.0f%%, memory %.0f%%, "
                  "communication %.0f%%, overhead %.0f%%)\n",
                  static_cast<long long>(p.concurrency), static_cast<long long>(shape.decode_seqs), cost.time_s * 1e3,
                  sim::ResourceName(cost.bound), 100 * cost.compute_s / cost.time_s, 100 * cost.memory_s / cost.time_s,
                  100 * cost.comm_s / cost.time_s, 100 * cost.overhead_s / cost.time_s);
    }
  }
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(simulate, "Predict a serving benchmark on catalogued GPUs (virtual time)",
                          frontier::cli::RunSimulate);
