// `frontier simulate`: predict a serving benchmark on catalogued hardware.
// Parsing and printing only; the simulator lives in src/sim.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/workload_flags.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/parse.h"
#include "metrics/result_json.h"
#include "sim/concurrency_sweep.h"
#include "sim/config.h"
#include "sim/simulate.h"
#include "sim/step_model.h"
#include "workload/dataset.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "simulate";

struct SimFlags {
  std::string concurrency;
  double client_rtt_us = static_cast<double>(sim::kDefaultClientRttNs) / kNanosPerMicro;
  int64_t max_requests = kMaxRunRequests;
  int64_t max_memory_mb = kDefaultSimMemoryBytes >> 20;
  bool explain = false, list = false;
};

// Exit status 1 and the commonest reasons on the terminal when not one
// request of a run succeeded (the reasons are otherwise only in the JSONL).
int AllFailed(const RunResult& run, const std::string& what) {
  std::cerr << "frontier simulate: every request" << what << " failed:\n" << TopFailureReasons(run);
  return 1;
}

Result<std::vector<int64_t>> ParseList(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(const int64_t v, ParseInt("--concurrency", item, 1, kMaxRunRequests));
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
  std::printf("%s on %dx %s (tp %d, ep %d, dp %d), %s weights%s, %s KV cache, stack %s  [simulated]\n",
              c.model.name.c_str(), c.gpus, c.hardware.name.c_str(), c.tp, c.ep, c.dp,
              sim::PrecisionName(c.precision),
              c.expert_precision != c.precision
                  ? (std::string(" (experts ") + sim::PrecisionName(c.expert_precision) + ")").c_str()
                  : "",
              sim::PrecisionName(c.kv_precision), c.stack.name.c_str());
  std::printf("memory per GPU: %.1f GB weights, %.1f GB activations, %.1f GB reserve, %.1f GB KV cache "
              "(%lld tokens in all)\n",
              c.memory.weights / 1e9, c.memory.activations / 1e9, c.memory.runtime_reserve / 1e9,
              c.memory.kv / 1e9, static_cast<long long>(c.memory.kv_capacity_tokens));
}

void PrintSummary(const metrics::Summary& s, const std::vector<double>& percentiles) {
  auto line = [](const char* name, double v, const char* fmt = "%.2f") {
    std::printf("%-40s %s\n", name, Fmt(fmt, v).c_str());
  };
  std::printf("============ Serving Benchmark Result (simulated) ============\n");
  line("Successful requests:", static_cast<double>(s.completed), "%.0f");
  line("Failed requests:", static_cast<double>(s.failed), "%.0f");
  for (const auto& [reason, n] : s.failures_by_reason)
    line(("  " + reason + ":").c_str(), static_cast<double>(n), "%.0f");
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
                    std::optional<int64_t> conc) {
  if (!json_path.empty()) {
    const nlohmann::json extra = ExtraFields(w, c, conc);
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
  print("stacks", sim::ListStacks(dir));
  std::printf("catalogs read from %s (set FRONTIER_DATA_DIR to change)\n", dir.c_str());
}

int RunSimulate(int argc, char** argv) {
  CLI::App app{"Predict a serving benchmark of a catalogued model on catalogued hardware", kCmd};
  SimFlags f;
  WorkloadFlags wf;
  sim::SimSpec spec;
  AddSimSpecFlags(app, &spec);
  app.add_option("--concurrency", f.concurrency, "Sweep: comma-separated max concurrencies, one run each")->group("Load");
  app.add_option("--client-rtt-us", f.client_rtt_us,
                 "Client round trip: a request reaches the engine this long after it is sent, so a closed-loop "
                 "replacement misses the step that starts as its predecessor finishes; 0 = instantaneous client "
                 "[150]")
      ->group("Load");
  app.add_option("--max-requests", f.max_requests,
                 "Bound on the requests one run simulates, warm-up included; a run that reaches it fails "
                 "[10000000]")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}))
      ->group("Load");
  app.add_option("--max-memory-mb", f.max_memory_mb,
                 "Bound on the memory of one run's request records (about 16 bytes per output token); a run "
                 "that reaches it fails [1024]")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->group("Load");
  app.add_flag("--explain", f.explain, "Print where a step's time goes and what bounds it")->group("Output");
  app.add_flag("--list", f.list, "List the catalogued models, hardware and stacks, then exit")->group("Output");
  AddWorkloadFlags(app, &wf);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (f.list) {
    PrintCatalogs(sim::DefaultDataDir());
    return 0;
  }
  if (!app.count("--model")) return UsageError(kCmd, "--model is required (frontier simulate --list shows the catalog)");
  if (!app.count("--hardware"))
    return UsageError(kCmd, "--hardware is required (frontier simulate --list shows the catalog)");
  if (Status in = CheckRange("--client-rtt-us", f.client_rtt_us, 0.0, 1e9); !in.ok())
    return UsageError(kCmd, in.message());
  sim::SimulateOptions sim_options;
  sim_options.client_rtt_ns = static_cast<Nanos>(std::llround(f.client_rtt_us * kNanosPerMicro));
  sim_options.max_requests = f.max_requests;
  sim_options.max_memory_bytes = f.max_memory_mb << 20;

  // Every flag is checked before anything is printed.
  Result<std::vector<int64_t>> levels = std::vector<int64_t>{};
  if (!f.concurrency.empty()) {
    levels = ParseList(f.concurrency);
    if (!levels.ok()) return Fail(kCmd, levels.status());
    if (app.count("--max-concurrency"))
      return UsageError(kCmd, "--concurrency runs one point per value; leave out --max-concurrency");
  }
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  if (!config.ok()) return Fail(kCmd, config.status());

  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  if (app.count("--num-gpus") && wf.num_gpus != config->gpus)
    return UsageError(kCmd, "--num-gpus " + std::to_string(wf.num_gpus) + " disagrees with the simulated " +
                                std::to_string(config->gpus) + " GPUs (--gpus / --tp x --dp); leave it out");
  w->summary.num_gpus = config->gpus;
  w->dataset.random.vocab_size = config->model.vocab;
  Result<std::vector<workload::RequestSpec>> requests = workload::LoadDataset(w->dataset);
  if (!requests.ok()) return Fail(kCmd, requests.status());

  auto stamp = [&](RunResult& run) {
    run.command_line = CommandLine(argc, argv);
    run.start_time_utc = UtcTimestampNow();
    run.requested_settings = w->requested;
    std::vector<std::string> flags = SimSpecFlagNames();
    flags.insert(flags.end(), {"--concurrency", "--client-rtt-us", "--max-requests", "--max-memory-mb"});
    for (const auto& flag : flags)
      if (app.count(flag)) run.requested_settings[flag.substr(2)] = app[flag]->as<std::string>();
    for (const auto& [k, v] : w->effective) run.effective_settings[k] = v;
  };

  PrintConfig(*config);
  if (f.concurrency.empty()) {
    sim::SimulationStats st;
    Result<RunResult> run = sim::Simulate(*config, *requests, w->load, sim_options, &st);
    if (!run.ok()) return Fail(kCmd, run.status());
    stamp(*run);
    const metrics::Summary s = metrics::Summarize(*run, w->summary);
    PrintSummary(s, w->summary.percentiles);
    if (f.explain) PrintExplain(*config, st);
    if (Status ws = WriteOutputs(w->result_json, w->requests_jsonl, *run, s, *w, *config, w->load.max_concurrency);
        !ws.ok())
      return Fail(kCmd, ws);
    return s.completed == 0 ? AllFailed(*run, "") : 0;
  }

  std::printf("%6s %9s %11s %11s %9s %9s %9s %9s %9s %9s %9s  %s\n", "conc", "req/s", "out tok/s", "tok/s/GPU",
              "tok/s/usr", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "E2EL p50", "E2EL p99", "pareto");
  std::string failed_points;  // the reasons of points where every request failed
  auto on_point = [&](const sim::SweepPoint& p, const RunResult& run_in) -> Status {
    if (p.summary.completed == 0)
      failed_points += "concurrency " + std::to_string(p.concurrency) + ":\n" + TopFailureReasons(run_in);
    RunResult run = run_in;
    stamp(run);
    const std::string json = w->result_json.empty() ? "" : PointPath(w->result_json, p.concurrency);
    const std::string jsonl = w->requests_jsonl.empty() ? "" : PointPath(w->requests_jsonl, p.concurrency);
    return WriteOutputs(json, jsonl, run, p.summary, *w, *config, p.concurrency);
  };
  metrics::SummaryOptions so = w->summary;
  for (double p : {50.0, 99.0})
    if (std::find(so.percentiles.begin(), so.percentiles.end(), p) == so.percentiles.end()) so.percentiles.push_back(p);
  Result<std::vector<sim::SweepPoint>> swept =
      sim::SweepConcurrency(*config, *requests, w->load, *levels, so, sim_options, on_point);
  if (!swept.ok()) return Fail(kCmd, swept.status());
  const std::vector<sim::SweepPoint>& points = *swept;
  for (const auto& p : points) {
    const auto& s = p.summary;
    std::printf("%6lld %9.2f %11.1f %11.1f %9.1f %9.1f %9.1f %9.2f %9.2f %9.1f %9.1f  %s\n",
                static_cast<long long>(p.concurrency), s.request_throughput, s.output_throughput,
                s.output_throughput_per_gpu, s.interactivity, s.ttft_ms.median, s.ttft_ms.At(99).value_or(0),
                s.tpot_ms.median, s.tpot_ms.At(99).value_or(0), s.e2el_ms.median, s.e2el_ms.At(99).value_or(0),
                p.pareto ? "*" : "");
  }
  std::printf("(* = Pareto-optimal: no other point has both more output tok/s/GPU and more tok/s/user)\n");
  if (!failed_points.empty()) {
    std::fflush(stdout);
    std::cerr << "frontier simulate: every request of a point failed:\n" << failed_points;
  }
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
  return failed_points.empty() ? 0 : 1;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(simulate, "Predict a serving benchmark on catalogued GPUs (virtual time)",
                          frontier::cli::RunSimulate);
