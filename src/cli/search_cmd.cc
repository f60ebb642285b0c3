// `frontier search`: the highest valid Server QPS under an MLPerf scenario,
// or the best throughput per GPU under an SLO, on a simulated system (virtual
// time) or a live server. Parsing and printing only; the search is
// loadgen/search.h.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/target_flags.h"
#include "cli/workload_flags.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/redact.h"
#include "core/version.h"
#include "loadgen/live_trial.h"
#include "loadgen/search.h"
#include "metrics/verdict_label.h"
#include "sim/engine/data_dir.h"
#include "sim/search_trial.h"
#include "store/store.h"
#include "sweep/search_store.h"
#include "sweep/system_run.h"
#include "workload/dataset.h"
#include "workload/dataset_label.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "search";

std::atomic<bool> g_stop{false};

extern "C" void OnSearchSigint(int) {
  if (g_stop.load()) std::_Exit(130);  // a second Ctrl-C: leave now
  g_stop.store(true);
}

struct SearchFlags {
  loadgen::SearchRequest request;   // --over ... --no-saturation-stop (checked by ApplySearchRequest)
  double min_value = 0, max_value = 0;
  bool no_saturation_stop = false;
  double client_rtt_us = kDefaultClientRttUs;
  DbFlags db;                       // db.db == "": trials are not stored
};

std::string Row(const loadgen::Trial& t, loadgen::SearchAxis axis) {
  const std::string value =
      axis == loadgen::SearchAxis::kRate ? fmt::format("{:.4g} req/s", t.value) : fmt::format("conc {:.0f}", t.value);
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

void AddSearchFlags(CLI::App& app, sim::SimSpec* spec, TargetFlags* tf, SearchFlags* f, WorkloadFlags* wf) {
  AddSimSpecFlags(app, spec);  // --model: the catalog model, or the served name with --base-url
  AddTargetFlags(app, tf, /*with_model=*/false);
  app.add_option("--over", f->request.over, "What to vary: rate or concurrency [rate with --scenario, else concurrency]")
      ->group("Search");
  app.add_option("--start", f->request.start, "First load: req/s or concurrency [1]")->group("Search");
  app.add_option("--growth", f->request.growth, "Bracketing factor, > 1 [2]")->group("Search");
  app.add_option("--tolerance", f->request.tolerance, "Rate: stop when the invalid/valid bracket is within this fraction [0.02]")
      ->group("Search");
  app.add_option("--max-trials", f->request.max_trials, "Most trials to run [20]")->group("Search");
  app.add_option("--min-value", f->min_value, "Lowest load to try [rate 0.01, concurrency 1]")->group("Search");
  app.add_option("--max-value", f->max_value, "Highest load to try [rate 1e6, concurrency 65536]")->group("Search");
  app.add_flag("--no-saturation-stop", f->no_saturation_stop,
               "Do not stop (or mark) trials whose queue grows without bound")
      ->group("Search");
  AddClientRttFlag(app, &f->client_rtt_us);  // simulated systems only
  AddDbFlags(app, &f->db,
             "every trial is stored as a point of one run, with its verdict and the search's decision, and the "
             "answer with the run",
             "search");
  AddWorkloadFlags(app, wf);
}

// The usage errors the flags show alone; "" when they fit together.
std::string SearchUsageProblem(const CLI::App& app, bool live, const WorkloadFlags& wf, const SearchFlags& f) {
  if (!app.count("--model"))
    return live ? "--model is required (the model name the server serves)"
                : "--model is required (frontier simulate --list shows the catalog)";
  if (live) {
    for (const std::string& flag : SimSpecFlagNames())
      if (flag != "--model" && app.count(flag))
        return flag + " describes a simulated system; leave it out with --base-url";
    if (app.count("--client-rtt-us")) return "--client-rtt-us is for simulated systems";
  } else {
    if (!app.count("--hardware"))
      return "--hardware is required for a simulated system (or give --base-url for a live one)";
    for (const char* flag : {"--backend", "--endpoint", "--api-key", "--header", "--extra-body", "--usage",
                             "--insecure", "--timeout", "--connect-timeout", "--first-token-timeout", "--grace",
                             "--workers", "--vocab-size"})
      if (app.count(flag)) return std::string(flag) + " is for a live server: give --base-url too";
  }
  if (!wf.requests_jsonl.empty()) return "--requests-jsonl is per run; a search writes --result-json";
  return CheckDbFlags(app, f.db);
}

// Everything one search resolved before its first trial.
struct SearchRun {
  bool live = false;
  std::string model;  // the served or catalogued model
  ResolvedWorkload w;
  std::optional<sim::SimConfig> config;
  sweep::SystemSpec system;  // what the stored run names
  sim::SimulateOptions sim_options;
  loadgen::SearchOptions o;
  std::vector<workload::RequestSpec> specs;
  std::unique_ptr<loadgen::TrialRunner> runner;
  std::unique_ptr<store::Store> db;
  std::optional<sweep::SearchRecorder> recorder;
};

// The simulated system of a search that has no --base-url, with its band.
Status ResolveSearchedSystem(const CLI::App& app, const sim::SimSpec& spec, const SearchFlags& f, SearchRun* s) {
  FRONTIER_ASSIGN_OR_RETURN(sim::SimConfig config, sim::ResolveSimConfig(spec));
  s->config = config;
  s->system = sweep::SimulatedSystem(spec, config);
  FRONTIER_RETURN_IF_ERROR(UseSimulatedSystem(*s->config, app.count("--num-gpus") > 0, &s->w));
  FRONTIER_ASSIGN_OR_RETURN(s->sim_options.client_rtt_ns, ClientRttNanos(f.client_rtt_us));
  // Loaded once: every trial carries it into its result and stored point.
  std::string note;
  s->sim_options.band = BandOf(*s->config, spec.data_dir, &note);
  if (!s->sim_options.band) std::fprintf(stderr, "frontier search: %s", BandLine(std::nullopt, note).c_str());
  return Status::Ok();
}

// The rules every trial is judged by and the search's own settings.
Status ResolveSearchOptions(const CLI::App& app, SearchFlags& f, const std::string& command_line, SearchRun* s) {
  if (app.count("--target-qps"))
    return InvalidArgument("--target-qps is what the search finds; leave it out (--start sets the first rate)");
  // Each trial sets its own target; the first one's lets the rules resolve.
  if (!s->w.scenario)  // said here before the rules are resolved (ApplySearchRequest says it too)
    return InvalidArgument("say what a trial must meet: --scenario server|interactive (the highest valid QPS), or "
                           "--slo / --min-interactivity (the best throughput per GPU)");
  if (s->w.scenario->scenario) s->w.scenario->target_qps = f.request.start;
  FRONTIER_ASSIGN_OR_RETURN(std::optional<loadgen::ScenarioRules> rules,
                            ResolveScenarioRules(s->w, sim::DefaultDataDir(), s->model));
  loadgen::SearchOptions& o = s->o;
  o.rules = *rules;
  o.base = s->w.load;
  if (app.count("--min-value")) f.request.min_value = f.min_value;
  if (app.count("--max-value")) f.request.max_value = f.max_value;
  f.request.saturation_stop = !f.no_saturation_stop;
  // The same checks as a plan's `search:` block.
  if (Status st = loadgen::ApplySearchRequest(f.request, &o); !st.ok()) return InvalidArgument(st.message());
  if (o.goal == loadgen::SearchGoal::kMaxValidQps) {
    // Each trial's load comes from the scenario; the prompts are a pool reused cyclically.
    UseScenarioPromptPool(o.rules, kUnboundedPrompts, &s->w);
  }
  o.point.summary = s->w.summary;
  o.interrupt = &g_stop;
  std::vector<std::string> own_flags = SimSpecFlagNames();
  own_flags.insert(own_flags.end(), {"--over", "--start", "--growth", "--tolerance", "--max-trials", "--min-value",
                                     "--max-value", "--no-saturation-stop", "--client-rtt-us", "--db",
                                     "--run-label"});
  o.point.command_line = command_line;
  o.point.requested_settings = s->w.requested;
  for (const auto& [k, v] : GivenFlags(app, own_flags)) o.point.requested_settings[k] = v;
  o.point.effective_settings = s->w.effective;
  return Status::Ok();
}

// The trial runner: a live server's, or the simulated system's.
Status MakeRunner(const TargetFlags& tf, const std::string& command_line, SearchRun* s) {
  std::optional<loadgen::BenchOptions> bench;
  if (s->live) {
    FRONTIER_ASSIGN_OR_RETURN(bench, ResolveTarget(tf, s->model, s->w));
    const std::string note =
        loadgen::ResolveVocabulary(bench->client, tf.vocab_size, &s->w.dataset, &bench->effective_settings);
    if (!note.empty()) std::fprintf(stderr, "frontier search: %s\n", note.c_str());
  }
  if (s->w.sessions)
    return InvalidArgument("the search takes single-turn workloads, not --dataset trace or multi-turn");
  if (!s->w.tokenizer.empty())
    return InvalidArgument("--tokenizer is taken by bench and simulate; a search does not make its prompts from a "
                           "tokenizer yet (leave it out)");
  FRONTIER_ASSIGN_OR_RETURN(s->specs, workload::LoadDataset(s->w.dataset));
  if (s->live) {
    bench->command_line = command_line;
    s->system = sweep::ServerSystem(s->model, bench->client.base_url, bench->client.endpoint, s->w.summary.num_gpus);
    s->o.point.extra_result_fields["backend"] = bench->extra_result_fields["backend"];
    s->runner = std::make_unique<loadgen::LiveTrialRunner>(*bench, &s->specs);
  } else {
    s->o.point.extra_result_fields["backend"] = "frontier-simulate";
    s->o.point.extra_result_fields["model_id"] = s->config->model.name;
    s->runner = std::make_unique<sim::SimTrialRunner>(*s->config, &s->specs, s->sim_options);
  }
  return Status::Ok();
}

// --db: the database opened and the search's run created before any trial.
Status StartSearchRecorder(const DbFlags& flags, const std::string& command_line, SearchRun* s) {
  if (flags.db.empty()) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(s->db, OpenResultsDb(kCmd, flags.db));
  const loadgen::SearchOptions& o = s->o;
  store::RunInfo run = sweep::CommandRun(s->system, o.point.effective_settings, command_line);
  run.sweep = flags.run_label;
  run.config["search_goal"] = loadgen::SearchGoalName(o.goal);
  run.config["search_axis"] = loadgen::SearchAxisName(o.axis);
  run.provenance = RunProvenance(command_line);
  FRONTIER_ASSIGN_OR_RETURN(sweep::SearchRecorder recorder,
                            sweep::SearchRecorder::Start(*s->db, std::move(run), workload::DatasetLabel(s->w.dataset)));
  s->recorder.emplace(std::move(recorder));
  return Status::Ok();
}

void PrintAnswer(const loadgen::SearchResult& result, const loadgen::SearchOptions& o) {
  std::printf("%s after %zu trials\n", result.stop_reason.c_str(), result.trials.size());
  if (!result.best) {
    std::printf("no trial was valid\n");
    return;
  }
  const bool server = o.goal == loadgen::SearchGoal::kMaxValidQps;
  const loadgen::Trial& b = result.trials[*result.best];
  if (server) {
    std::printf("max valid QPS: %.4g (trial %d): %.1f output tok/s, %.1f tok/s/GPU\n", b.value, b.index,
                b.summary.output_throughput, b.summary.output_throughput_per_gpu);
  } else {
    std::printf("best throughput under the SLO: %.1f output tok/s/GPU at %s %.4g (trial %d), %.1f tok/s/user\n",
                b.summary.output_throughput_per_gpu,
                o.axis == loadgen::SearchAxis::kRate ? "request rate" : "concurrency", b.value, b.index,
                b.summary.interactivity);
  }
  if (b.band) {
    // How sure the answer is: the simulated throughput's range under the band.
    const double tput = b.summary.output_throughput_per_gpu;
    std::printf("prediction band: %s", b.band->Describe().c_str());
    if (b.band->points > 0) std::printf(": %.1f to %.1f output tok/s/GPU", b.band->Lower(tput), b.band->Upper(tput));
    std::printf("\n");
    if (!b.band->flags.empty()) std::printf("extrapolates: %s\n", b.band->FlagsText().c_str());
  }
  loadgen::ScenarioRules best_rules = o.rules;
  if (server) best_rules.target_qps = b.value;
  std::printf("%s", loadgen::FormatVerdict(b.verdict, best_rules).c_str());
}

// Runs the trials, each printed, stored and written as it ends.
Result<loadgen::SearchResult> RunTrials(SearchRun& s) {
  const loadgen::SearchOptions& o = s.o;
  const bool server = o.goal == loadgen::SearchGoal::kMaxValidQps;
  std::printf("search: %s, %s over %s, on %s\n", loadgen::SearchGoalName(o.goal),
              server ? (std::string(loadgen::ScenarioName(*o.rules.scenario)) +
                        (o.rules.benchmark.empty() ? "" : " (" + o.rules.benchmark + ")"))
                           .c_str()
                     : "SLO",
              loadgen::SearchAxisName(o.axis), s.runner->Name().c_str());
  std::fflush(stdout);
  auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) -> Status {
    std::printf("%s\n", Row(t, o.axis).c_str());
    std::fflush(stdout);
    if (s.recorder) FRONTIER_RETURN_IF_ERROR(s.recorder->Record(t, so_far, o, s.runner->Name()));
    if (s.w.result_json.empty()) return Status::Ok();
    return WriteFileAtomically(s.w.result_json, loadgen::SearchResultJson(so_far, o, s.runner->Name()).dump(2) + "\n");
  };
  std::signal(SIGINT, OnSearchSigint);
  Result<loadgen::SearchResult> result = loadgen::Search(*s.runner, o, on_trial);
  std::signal(SIGINT, SIG_DFL);
  return result;
}

int RunSearch(int argc, char** argv) {
  CLI::App app{"Find the highest valid Server QPS (--scenario) or the best throughput per GPU under an SLO "
               "(--slo, --min-interactivity), on a simulated system or a live server (--base-url)",
               kCmd};
  sim::SimSpec spec;
  TargetFlags tf;
  SearchFlags f;
  WorkloadFlags wf;
  AddSearchFlags(app, &spec, &tf, &f, &wf);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  SearchRun s;
  s.live = app.count("--base-url") > 0;
  if (const std::string bad = SearchUsageProblem(app, s.live, wf, f); !bad.empty()) return UsageError(kCmd, bad);
  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  s.w = std::move(*w);
  s.model = spec.model;
  if (!s.live) {
    if (Status st = ResolveSearchedSystem(app, spec, f, &s); !st.ok()) return Fail(kCmd, st);
    s.model = s.config->model.name;
  }
  const std::string command_line = CommandLine(argc, argv);
  if (Status st = ResolveSearchOptions(app, f, command_line, &s); !st.ok()) return Fail(kCmd, st);
  if (Status st = MakeRunner(tf, command_line, &s); !st.ok()) return Fail(kCmd, st);
  if (Status st = StartSearchRecorder(f.db, command_line, &s); !st.ok()) return Fail(kCmd, st);
  Result<loadgen::SearchResult> result = RunTrials(s);
  if (!result.ok()) return Fail(kCmd, result.status());
  PrintAnswer(*result, s.o);
  if (!s.w.result_json.empty()) std::fprintf(stderr, "frontier search: wrote %s\n", s.w.result_json.c_str());
  if (s.recorder) {
    std::fprintf(stderr, "frontier search: stored %zu trials as run %s in %s\n", result->trials.size(),
                 s.recorder->run().Label().c_str(), RedactUrl(f.db.db).c_str());
  }
  return result->stop_reason == "interrupted" ? 130 : 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(search, "Find the highest valid QPS or the best throughput per GPU under an SLO",
                          frontier::cli::RunSearch);
