// `frontier simulate`: predict a serving benchmark on catalogued hardware.
// Parsing and printing only; the simulator lives in src/sim.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/summary_print.h"
#include "cli/workload_flags.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/parse.h"
#include "core/redact.h"
#include "loadgen/point.h"
#include "loadgen/verdict.h"
#include "metrics/result_json.h"
#include "sim/concurrency_sweep.h"
#include "sim/deployment_search.h"
#include "sim/engine/config.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/step_model.h"
#include "sim/fit/band.h"
#include "sim/fit/validation.h"
#include "sim/sim_target.h"
#include "sim/simulate.h"
#include "store/records.h"
#include "sweep/system_run.h"
#include "workload/dataset.h"
#include "workload/dataset_label.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "simulate";

struct SimFlags {
  std::string concurrency;
  double client_rtt_us = kDefaultClientRttUs;
  int64_t max_requests = kMaxRunRequests;
  int64_t max_memory_mb = kDefaultSimMemoryBytes >> 20;
  bool explain = false, list = false, best_deployment = false, search_disagg = false;
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

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// " (feed-forward fp8, 2 layers' bf16)" when the MLPs / experts differ from the other weights.
std::string FfnNote(const sim::SimConfig& c) {
  std::string note = std::string(" (feed-forward ") + sim::PrecisionName(c.ffn_precision);
  if (c.model.ffn_unquantized_layers > 0)
    note += ", " + std::to_string(c.model.ffn_unquantized_layers) + " layers' " + sim::PrecisionName(c.precision);
  return note + ")";
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
              c.ffn_precision != c.precision ? FfnNote(c).c_str() : "",
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

// What a simulated point's result JSON and provenance say beyond the load
// and the target (loadgen/point.h).
loadgen::PointOptions SimPointOptions(const ResolvedWorkload& w, const sim::SimConfig& c,
                                      std::map<std::string, std::string> requested, const std::string& command_line) {
  loadgen::PointOptions o;
  o.run = sim::VirtualRunOptions(/*observed=*/false);
  o.summary = w.summary;
  o.result_json = w.result_json;
  o.requests_jsonl = w.requests_jsonl;
  o.command_line = command_line;
  o.model = c.model.name;
  o.requested_settings = std::move(requested);
  o.effective_settings = w.effective;
  o.extra_result_fields["backend"] = "frontier-simulate";
  o.extra_result_fields["model_id"] = c.model.name;
  return o;
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

void AddSimulateFlags(CLI::App& app, SimFlags* f, sim::SimSpec* spec, WorkloadFlags* wf, DbFlags* db) {
  AddSimSpecFlags(app, spec);
  app.add_option("--concurrency", f->concurrency, "Sweep: comma-separated max concurrencies, one run each (open sessions, for a session workload)")->group("Load");
  AddClientRttFlag(app, &f->client_rtt_us);
  app.add_option("--max-requests", f->max_requests,
                 "Bound on the requests one run simulates, warm-up included; a run that reaches it fails "
                 "[10000000]")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}))
      ->group("Load");
  app.add_option("--max-memory-mb", f->max_memory_mb,
                 "Bound on the memory of one run's request records (about 16 bytes per output token); a run "
                 "that reaches it fails [1024]")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->group("Load");
  app.add_flag("--explain", f->explain, "Print where a step's time goes and what bounds it")->group("Output");
  app.add_flag("--list", f->list, "List the catalogued models, hardware and stack versions, then exit")->group("Output");
  app.add_flag("--best-deployment", f->best_deployment,
               "With --concurrency and --gpus: sweep every layout of the GPUs (TP, DP, EP, attention DP) and print "
               "the best deployment at each interactivity")
      ->group("Load");
  app.add_flag("--search-disagg", f->search_disagg,
               "With --best-deployment: also try disaggregated prefill / decode splits")
      ->group("Load");
  AddWorkloadFlags(app, wf);
  AddDbFlags(app, db,
             "the simulated points are stored as one run, each point when it ends: summary, verdict (with "
             "--scenario or --slo), per-request rows and series, source simulated",
             "simulate");
}

// The usage errors the flags show alone; "" when they fit together.
std::string SimulateUsageProblem(const CLI::App& app, const SimFlags& f, const sim::SimSpec& spec, const DbFlags& db) {
  if (std::string bad = CheckDbFlags(app, db); !bad.empty()) return bad;
  if (!db.db.empty() && (f.list || f.best_deployment))
    return std::string("--db stores simulated points; ") +
           (f.list ? "--list simulates none" : "--best-deployment compares layouts without storing them");
  if (f.list) return "";
  if (!app.count("--model")) return "--model is required (frontier simulate --list shows the catalog)";
  if (!app.count("--hardware")) return "--hardware is required (frontier simulate --list shows the catalog)";
  if (Result<Nanos> rtt = ClientRttNanos(f.client_rtt_us); !rtt.ok()) return rtt.status().message();
  if (!f.best_deployment) return "";
  // Every layout is resolved by the search; the one the flags name need not fit.
  if (spec.gpus < 1) return "--best-deployment needs --gpus (the GPUs to lay out)";
  if (app.count("--tp") || app.count("--dp") || app.count("--ep") || spec.attention_dp || spec.disaggregated())
    return "--best-deployment tries every layout itself: leave out --tp, --dp, --ep, --attention-dp and the pool "
           "flags";
  return "";
}

// The deployment the flags name; for --best-deployment, a stand-in when it
// does not fit (the workload's vocabulary and the GPU count; not simulated).
Result<sim::SimConfig> ResolveDeployment(const sim::SimSpec& spec, bool best_deployment) {
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  if (config.ok() || !best_deployment) return config;
  FRONTIER_ASSIGN_OR_RETURN(sim::ModelSpec model,
                            sim::LoadModel(spec.model, spec.data_dir.empty() ? sim::DefaultDataDir() : spec.data_dir));
  sim::SimConfig stand_in;
  stand_in.model = model;
  stand_in.gpus = spec.gpus;
  return stand_in;
}

// --concurrency's levels (none without it), with the dataset drawn large
// enough for the largest; the usage errors of a sweep.
Result<std::vector<int64_t>> ResolveLevels(const CLI::App& app, const SimFlags& f, ResolvedWorkload* w) {
  if (f.concurrency.empty()) {
    if (f.best_deployment) return InvalidArgument("--best-deployment sweeps: give --concurrency 1,2,4,...");
    return std::vector<int64_t>{};
  }
  FRONTIER_ASSIGN_OR_RETURN(std::vector<int64_t> levels, ParseList(f.concurrency));
  if (app.count("--max-concurrency"))
    return InvalidArgument("--concurrency runs one point per value; leave out --max-concurrency");
  if (app.count("--duration"))
    return InvalidArgument("--concurrency sizes each point by requests (at least 4x the concurrency); leave out "
                           "--duration");
  // Each point sends at least 4x its concurrency (sessions, for a session
  // workload): draw enough for the largest. A trace is read whole and its
  // sessions reused cyclically.
  const int64_t most = sim::SweepPrompts(w->load.num_prompts, *std::max_element(levels.begin(), levels.end()));
  if (w->dataset.kind != workload::DatasetKind::kTrace)
    w->dataset.num_prompts = std::max<int64_t>(w->dataset.num_prompts, most + w->load.warmup);
  return levels;
}

// --max-num-seqs auto for one point: the cap raised to the offered
// concurrency (a sweep raises it per point itself).
Status ApplyMaxNumSeqsAuto(const SimFlags& f, const ResolvedWorkload& w, sim::SimConfig* config) {
  if (!f.concurrency.empty()) return Status::Ok();
  if (!w.load.max_concurrency)
    return InvalidArgument("--max-num-seqs auto raises the cap to the offered concurrency: give --concurrency or "
                           "--max-concurrency, or a number");
  FRONTIER_ASSIGN_OR_RETURN(*config, sim::WithMaxNumSeqsFor(*config, *w.load.max_concurrency));
  return Status::Ok();
}

// Everything one invocation resolved before it simulates.
struct Simulation {
  SimFlags f;
  sim::SimSpec spec;
  DbFlags db;
  sim::SimConfig config;
  ResolvedWorkload w;
  std::optional<loadgen::ScenarioRules> rules;
  std::vector<int64_t> levels;
  PreparedWorkload prepared;
  sim::SimulateOptions sim_options;
  loadgen::PointOptions point;
  std::optional<sweep::PointRecorder> recorder;

  void StoredNote() const {
    if (recorder)
      std::cerr << "frontier simulate: stored " << recorder->stored() << " point(s) as run "
                << recorder->run().Label() << " in " << RedactUrl(db.db) << "\n";
  }
};

// The workload, scenario, levels and requests of `s`, after the flags.
Status ResolveSimulatedWorkload(const CLI::App& app, const WorkloadFlags& wf, Simulation* s) {
  FRONTIER_ASSIGN_OR_RETURN(s->w, ResolveWorkload(wf));
  FRONTIER_ASSIGN_OR_RETURN(s->rules, ResolveScenarioRules(s->w, sim::DefaultDataDir(), s->config.model.name));
  if (s->rules) {
    if (!s->f.concurrency.empty())
      return InvalidArgument("--concurrency runs a sweep; judge one point at a time, or use frontier search");
    FRONTIER_RETURN_IF_ERROR(ApplyScenarioLoad(*s->rules, &s->w));
  }
  FRONTIER_RETURN_IF_ERROR(UseSimulatedSystem(s->config, app.count("--num-gpus") > 0, &s->w));
  FRONTIER_ASSIGN_OR_RETURN(s->levels, ResolveLevels(app, s->f, &s->w));
  if (s->spec.max_num_seqs_auto) FRONTIER_RETURN_IF_ERROR(ApplyMaxNumSeqsAuto(s->f, s->w, &s->config));
  if (s->w.sessions && s->f.best_deployment)
    return InvalidArgument("--best-deployment searches single-turn workloads; sweep a session workload with "
                           "--concurrency (it counts open sessions)");
  FRONTIER_ASSIGN_OR_RETURN(s->prepared, PrepareWorkload(&s->w));
  return Status::Ok();
}

// The point options every point of the invocation shares; the database is
// opened, and the run created, before anything is simulated: a database that
// cannot be written fails now.
Status StartPoints(const CLI::App& app, const std::string& command_line, Simulation* s) {
  std::map<std::string, std::string> requested = s->w.requested;
  std::vector<std::string> flags = SimSpecFlagNames();
  flags.insert(flags.end(), {"--concurrency", "--client-rtt-us", "--max-requests", "--max-memory-mb"});
  for (const auto& [k, v] : GivenFlags(app, flags)) requested[k] = v;
  s->point = SimPointOptions(s->w, s->config, requested, command_line);
  if (s->prepared.sessions) s->point.sessions = &*s->prepared.sessions;
  s->point.ideal_block_tokens = s->w.ideal_block_tokens;
  if (s->db.db.empty() || s->f.best_deployment) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(sweep::PointRecorder recorder,
                            StartPointRecorder(kCmd, s->db,
                                               sweep::CommandRun(sweep::SimulatedSystem(s->spec, s->config),
                                                                 s->w.effective, s->point.command_line)));
  s->recorder.emplace(std::move(recorder));
  return Status::Ok();
}

// One point (no --concurrency): run, store, print.
int SimulateOnePoint(Simulation& s) {
  if (s.rules) s.point.rules = *s.rules;
  sim::SimTarget target(s.config, s.sim_options);
  Result<loadgen::PointOutcome> out =
      loadgen::RunPoint(target, s.prepared.specs, s.w.load, s.point, nullptr, &target.stop());
  if (!out.ok()) {
    if (s.recorder) (void)s.recorder->MarkBroken(out.status().message());  // the run's failure is the error shown
    return Fail(kCmd, out.status());
  }
  if (s.recorder) {
    if (Status st = s.recorder->Record(workload::DatasetLabel(s.w.dataset), s.w.load, *out, s.rules); !st.ok())
      return Fail(kCmd, st);
    s.StoredNote();
  }
  PrintSummary(out->run, out->summary);
  if (const sim::SimulationStats st = target.stats(); st.prefix_queries > 0)
    std::printf("prefix cache: %lld of %lld prompt tokens hit (%.1f%%), %lld blocks evicted\n",
                static_cast<long long>(st.prefix_hits), static_cast<long long>(st.prefix_queries),
                st.prefix_hit_rate() * 100, static_cast<long long>(st.evicted_blocks));
  if (s.f.explain) PrintExplain(s.config, target.stats());
  if (out->verdict) std::printf("%s", loadgen::FormatVerdict(*out->verdict, *s.rules).c_str());
  return out->summary.completed == 0 ? AllFailed(out->run, "") : 0;
}

void PrintSweepHeader() {
  std::printf("%6s %7s %9s %11s %11s %9s %9s %9s %9s %9s %9s %9s  %s\n", "conc", "prompts", "req/s", "out tok/s",
              "tok/s/GPU", "tok/s/usr", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "E2EL p50", "E2EL p99",
              "pareto");
}

void PrintSweepTable(const std::vector<sim::SweepPoint>& points) {
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
}

void PrintSweepExplain(const sim::SimConfig& config, const std::vector<sim::SweepPoint>& points) {
  const sim::StepModel model(config);
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

// --concurrency: one point per level (or --best-deployment's search over layouts).
int SimulateSweep(Simulation& s) {
  metrics::SummaryOptions so = s.w.summary;
  for (double p : {50.0, 99.0})
    if (std::find(so.percentiles.begin(), so.percentiles.end(), p) == so.percentiles.end()) so.percentiles.push_back(p);
  sim::SweepOptions sweep(s.sim_options);
  sweep.max_num_seqs_auto = s.spec.max_num_seqs_auto;
  if (s.prepared.sessions) sweep.sessions = &*s.prepared.sessions;  // concurrency counts open sessions
  sweep.ideal_block_tokens = s.w.ideal_block_tokens;
  if (s.f.best_deployment)
    return BestDeployment(s.spec, s.prepared.specs, s.w, s.levels, so, sweep, s.f.search_disagg);
  PrintSweepHeader();
  std::string failed_points;  // the reasons of points where every request failed
  const std::string workload_name = workload::DatasetLabel(s.w.dataset);
  auto on_point = [&](const sim::SweepPoint& p, const RunResult& run) -> Status {
    if (p.summary.completed == 0)
      failed_points += "concurrency " + std::to_string(p.concurrency) + ":\n" + TopFailureReasons(run);
    FRONTIER_ASSIGN_OR_RETURN(sim::SweepPointRecord r,
                              sim::WriteSweepPointFiles(s.point, s.config.model.name, s.w.load, p, run));
    // Each point is stored as it ends: an interrupted sweep keeps the points it finished.
    if (s.recorder)
      FRONTIER_RETURN_IF_ERROR(s.recorder->Record(workload_name, r.load, r.outcome, std::nullopt));
    return Status::Ok();
  };
  Result<std::vector<sim::SweepPoint>> swept =
      sim::SweepConcurrency(s.config, s.prepared.specs, s.w.load, s.levels, so, sweep, on_point);
  if (!swept.ok()) {
    if (s.recorder) (void)s.recorder->MarkBroken(swept.status().message());  // the points before it stay stored
    s.StoredNote();
    return Fail(kCmd, swept.status());
  }
  s.StoredNote();
  PrintSweepTable(*swept);
  if (!failed_points.empty()) {
    std::fflush(stdout);
    std::cerr << "frontier simulate: every request of a point failed:\n" << failed_points;
  }
  if (s.f.explain) PrintSweepExplain(s.config, *swept);
  return failed_points.empty() ? 0 : 1;
}

int RunSimulate(int argc, char** argv) {
  CLI::App app{"Predict a serving benchmark of a catalogued model on catalogued hardware", kCmd};
  Simulation s;
  WorkloadFlags wf;
  AddSimulateFlags(app, &s.f, &s.spec, &wf, &s.db);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (const std::string bad = SimulateUsageProblem(app, s.f, s.spec, s.db); !bad.empty())
    return UsageError(kCmd, bad);
  if (s.f.list) {
    PrintCatalogs(sim::DefaultDataDir());
    return 0;
  }
  s.sim_options.client_rtt_ns = *ClientRttNanos(s.f.client_rtt_us);
  s.sim_options.max_requests = s.f.max_requests;
  s.sim_options.max_memory_bytes = s.f.max_memory_mb << 20;
  Result<sim::SimConfig> config = ResolveDeployment(s.spec, s.f.best_deployment);
  if (!config.ok()) return Fail(kCmd, config.status());
  s.config = *config;
  if (Status st = ResolveSimulatedWorkload(app, wf, &s); !st.ok()) return Fail(kCmd, st);
  if (Status st = StartPoints(app, CommandLine(argc, argv), &s); !st.ok()) return Fail(kCmd, st);
  if (!s.f.best_deployment) {
    PrintConfig(s.config);
    // How sure the prediction is: loaded once, printed here, and carried by
    // every point into its result JSON and stored record.
    std::string note;
    s.sim_options.band = BandOf(s.config, s.spec.data_dir, &note);
    std::printf("%s", BandLine(s.sim_options.band, note).c_str());
  }
  return s.f.concurrency.empty() ? SimulateOnePoint(s) : SimulateSweep(s);
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(simulate, "Predict a serving benchmark on catalogued GPUs (virtual time)",
                          frontier::cli::RunSimulate);
