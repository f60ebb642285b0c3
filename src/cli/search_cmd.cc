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
#include "workload/dataset.h"

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

int RunSearch(int argc, char** argv) {
  CLI::App app{"Find the highest valid Server QPS (--scenario) or the best throughput per GPU under an SLO "
               "(--slo, --min-interactivity), on a simulated system or a live server (--base-url)",
               kCmd};
  sim::SimSpec spec;
  AddSimSpecFlags(app, &spec);  // --model: the catalog model, or the served name with --base-url
  TargetFlags tf;
  AddTargetFlags(app, &tf, /*with_model=*/false);
  SearchFlags f;
  app.add_option("--over", f.request.over, "What to vary: rate or concurrency [rate with --scenario, else concurrency]")
      ->group("Search");
  app.add_option("--start", f.request.start, "First load: req/s or concurrency [1]")->group("Search");
  app.add_option("--growth", f.request.growth, "Bracketing factor, > 1 [2]")->group("Search");
  app.add_option("--tolerance", f.request.tolerance, "Rate: stop when the invalid/valid bracket is within this fraction [0.02]")
      ->group("Search");
  app.add_option("--max-trials", f.request.max_trials, "Most trials to run [20]")->group("Search");
  app.add_option("--min-value", f.min_value, "Lowest load to try [rate 0.01, concurrency 1]")->group("Search");
  app.add_option("--max-value", f.max_value, "Highest load to try [rate 1e6, concurrency 65536]")->group("Search");
  app.add_flag("--no-saturation-stop", f.no_saturation_stop,
               "Do not stop (or mark) trials whose queue grows without bound")
      ->group("Search");
  AddClientRttFlag(app, &f.client_rtt_us);  // simulated systems only
  AddDbFlags(app, &f.db,
             "every trial is stored as a point of one run, with its verdict and the search's decision, and the "
             "answer with the run",
             "search");
  WorkloadFlags wf;
  AddWorkloadFlags(app, &wf);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;

  const bool live = app.count("--base-url") > 0;
  if (!app.count("--model"))
    return UsageError(kCmd, live ? "--model is required (the model name the server serves)"
                                 : "--model is required (frontier simulate --list shows the catalog)");
  if (live) {
    for (const std::string& flag : SimSpecFlagNames())
      if (flag != "--model" && app.count(flag))
        return UsageError(kCmd, flag + " describes a simulated system; leave it out with --base-url");
    if (app.count("--client-rtt-us")) return UsageError(kCmd, "--client-rtt-us is for simulated systems");
  } else {
    if (!app.count("--hardware"))
      return UsageError(kCmd, "--hardware is required for a simulated system (or give --base-url for a live one)");
    for (const char* flag : {"--backend", "--endpoint", "--api-key", "--header", "--extra-body", "--usage",
                             "--insecure", "--timeout", "--connect-timeout", "--first-token-timeout", "--grace",
                             "--workers", "--vocab-size"})
      if (app.count(flag)) return UsageError(kCmd, std::string(flag) + " is for a live server: give --base-url too");
  }
  if (!wf.requests_jsonl.empty()) return UsageError(kCmd, "--requests-jsonl is per run; a search writes --result-json");
  if (const std::string bad = CheckDbFlags(app, f.db); !bad.empty()) return UsageError(kCmd, bad);

  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  std::optional<sim::SimConfig> config;
  sim::SimulateOptions sim_options;
  if (!live) {
    Result<sim::SimConfig> c = sim::ResolveSimConfig(spec);
    if (!c.ok()) return Fail(kCmd, c.status());
    config = *c;
    if (Status s = UseSimulatedSystem(*config, app.count("--num-gpus") > 0, &*w); !s.ok()) return Fail(kCmd, s);
    Result<Nanos> rtt = ClientRttNanos(f.client_rtt_us);
    if (!rtt.ok()) return Fail(kCmd, rtt.status());
    sim_options.client_rtt_ns = *rtt;
    // Loaded once: every trial carries it into its result and stored point.
    std::string note;
    sim_options.band = BandOf(*config, spec.data_dir, &note);
    if (!sim_options.band) std::fprintf(stderr, "frontier search: %s", BandLine(std::nullopt, note).c_str());
  }
  if (app.count("--target-qps"))
    return UsageError(kCmd, "--target-qps is what the search finds; leave it out (--start sets the first rate)");
  // Each trial sets its own target; the first one's lets the rules resolve.
  if (!w->scenario)  // said here before the rules are resolved (ApplySearchRequest says it too)
    return UsageError(kCmd, "say what a trial must meet: --scenario server|interactive (the highest valid QPS), or "
                            "--slo / --min-interactivity (the best throughput per GPU)");
  if (w->scenario->scenario) w->scenario->target_qps = f.request.start;
  auto rules = ResolveScenarioRules(*w, sim::DefaultDataDir(), live ? spec.model : config->model.name);
  if (!rules.ok()) return Fail(kCmd, rules.status());

  loadgen::SearchOptions o;
  o.rules = **rules;
  o.base = w->load;
  if (app.count("--min-value")) f.request.min_value = f.min_value;
  if (app.count("--max-value")) f.request.max_value = f.max_value;
  f.request.saturation_stop = !f.no_saturation_stop;
  // The same checks as a plan's `search:` block.
  if (Status s = loadgen::ApplySearchRequest(f.request, &o); !s.ok()) return UsageError(kCmd, s.message());
  const bool server = o.goal == loadgen::SearchGoal::kMaxValidQps;
  const bool rate = o.axis == loadgen::SearchAxis::kRate;
  if (server) {
    // Each trial's load comes from the scenario; the prompts are a pool reused cyclically.
    UseScenarioPromptPool(o.rules, kUnboundedPrompts, &*w);
  }
  o.point.summary = w->summary;
  o.interrupt = &g_stop;
  const std::string command_line = CommandLine(argc, argv);
  std::vector<std::string> own_flags = SimSpecFlagNames();
  own_flags.insert(own_flags.end(), {"--over", "--start", "--growth", "--tolerance", "--max-trials", "--min-value",
                                     "--max-value", "--no-saturation-stop", "--client-rtt-us", "--db",
                                     "--run-label"});
  const std::map<std::string, std::string> given = GivenFlags(app, own_flags);
  o.point.command_line = command_line;
  o.point.requested_settings = w->requested;
  for (const auto& [k, v] : given) o.point.requested_settings[k] = v;
  o.point.effective_settings = w->effective;

  std::optional<loadgen::BenchOptions> bench;
  if (live) {
    auto b = ResolveTarget(tf, spec.model, *w);
    if (!b.ok()) return Fail(kCmd, b.status());
    bench = std::move(*b);
    const std::string note =
        loadgen::ResolveVocabulary(bench->client, tf.vocab_size, &w->dataset, &bench->effective_settings);
    if (!note.empty()) std::fprintf(stderr, "frontier search: %s\n", note.c_str());
  }
  if (w->sessions) return UsageError(kCmd, "the search takes single-turn workloads, not --dataset trace or multi-turn");
  if (!w->tokenizer.empty())
    return UsageError(kCmd, "--tokenizer is taken by bench and simulate; a search does not make its prompts from a "
                            "tokenizer yet (leave it out)");
  Result<std::vector<workload::RequestSpec>> specs = workload::LoadDataset(w->dataset);
  if (!specs.ok()) return Fail(kCmd, specs.status());
  std::unique_ptr<loadgen::TrialRunner> runner;
  if (live) {
    bench->command_line = command_line;
    o.point.extra_result_fields["backend"] = bench->extra_result_fields["backend"];
    runner = std::make_unique<loadgen::LiveTrialRunner>(*bench, &*specs);
  } else {
    o.point.extra_result_fields["backend"] = "frontier-simulate";
    o.point.extra_result_fields["model_id"] = config->model.name;
    runner = std::make_unique<sim::SimTrialRunner>(*config, &*specs, sim_options);
  }

  std::optional<sweep::SearchRecorder> recorder;
  std::unique_ptr<store::Store> db;
  if (!f.db.db.empty()) {
    Result<std::unique_ptr<store::Store>> st = OpenResultsDb(kCmd, f.db.db);
    if (!st.ok()) return Fail(kCmd, st.status());
    db = std::move(*st);
    store::RunInfo run;
    run.sweep = f.db.run_label;
    run.plan_text = command_line;
    run.system = runner->Name();
    run.source = live ? store::source::kMeasured : store::source::kSimulated;
    run.config = o.point.effective_settings;
    run.config["model"] = live ? spec.model : config->model.name;
    // The keys the report and dashboard look prices and power up by, as a sweep's run has them.
    run.config["gpus"] = std::to_string(o.point.summary.num_gpus);
    if (!live) run.config["hardware"] = config->hardware.name;
    run.config["search_goal"] = loadgen::SearchGoalName(o.goal);
    run.config["search_axis"] = loadgen::SearchAxisName(o.axis);
    run.provenance = RunProvenance(command_line);
    Result<sweep::SearchRecorder> started =
        sweep::SearchRecorder::Start(*db, std::move(run), WorkloadName(w->dataset));
    if (!started.ok()) return Fail(kCmd, started.status());
    recorder.emplace(std::move(*started));
  }

  std::printf("search: %s, %s over %s, on %s\n", loadgen::SearchGoalName(o.goal),
              server ? (std::string(loadgen::ScenarioName(*o.rules.scenario)) +
                        (o.rules.benchmark.empty() ? "" : " (" + o.rules.benchmark + ")"))
                           .c_str()
                     : "SLO",
              loadgen::SearchAxisName(o.axis), runner->Name().c_str());
  std::fflush(stdout);
  auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) -> Status {
    std::printf("%s\n", Row(t, o.axis).c_str());
    std::fflush(stdout);
    if (recorder) FRONTIER_RETURN_IF_ERROR(recorder->Record(t, so_far, o, runner->Name()));
    if (w->result_json.empty()) return Status::Ok();
    return WriteFileAtomically(w->result_json, loadgen::SearchResultJson(so_far, o, runner->Name()).dump(2) + "\n");
  };
  std::signal(SIGINT, OnSearchSigint);
  Result<loadgen::SearchResult> result = loadgen::Search(*runner, o, on_trial);
  std::signal(SIGINT, SIG_DFL);
  if (!result.ok()) return Fail(kCmd, result.status());

  std::printf("%s after %zu trials\n", result->stop_reason.c_str(), result->trials.size());
  if (!result->best) {
    std::printf("no trial was valid\n");
  } else {
    const loadgen::Trial& b = result->trials[*result->best];
    if (o.goal == loadgen::SearchGoal::kMaxValidQps) {
      std::printf("max valid QPS: %.4g (trial %d): %.1f output tok/s, %.1f tok/s/GPU\n", b.value, b.index,
                  b.summary.output_throughput, b.summary.output_throughput_per_gpu);
    } else {
      std::printf("best throughput under the SLO: %.1f output tok/s/GPU at %s %.4g (trial %d), %.1f tok/s/user\n",
                  b.summary.output_throughput_per_gpu, rate ? "request rate" : "concurrency", b.value, b.index,
                  b.summary.interactivity);
    }
    if (b.band) {
      // How sure the answer is: the simulated throughput's range under the band.
      const double tput = b.summary.output_throughput_per_gpu;
      std::printf("prediction band: %s", b.band->Describe().c_str());
      if (b.band->points > 0)
        std::printf(": %.1f to %.1f output tok/s/GPU", b.band->Lower(tput), b.band->Upper(tput));
      std::printf("\n");
      if (!b.band->flags.empty()) std::printf("extrapolates: %s\n", b.band->FlagsText().c_str());
    }
    loadgen::ScenarioRules best_rules = o.rules;
    if (server) best_rules.target_qps = b.value;
    std::printf("%s", loadgen::FormatVerdict(b.verdict, best_rules).c_str());
  }
  if (!w->result_json.empty()) std::fprintf(stderr, "frontier search: wrote %s\n", w->result_json.c_str());
  if (recorder) {
    std::fprintf(stderr, "frontier search: stored %zu trials as run %s in %s\n", result->trials.size(),
                 recorder->run().Label().c_str(), RedactUrl(f.db.db).c_str());
  }
  return result->stop_reason == "interrupted" ? 130 : 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(search, "Find the highest valid QPS or the best throughput per GPU under an SLO",
                          frontier::cli::RunSearch);
