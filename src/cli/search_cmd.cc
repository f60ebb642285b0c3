// `frontier search`: the highest valid Server QPS under an MLPerf scenario,
// or the best throughput per GPU under an SLO, on a simulated system (virtual
// time) or a live server. Parsing and printing only; the search is
// sweep/search_job.h over loadgen/search.h, its lines loadgen/search_text.h.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/target_flags.h"
#include "cli/workload_flags.h"
#include "core/redact.h"
#include "loadgen/search.h"
#include "loadgen/search_text.h"
#include "store/records.h"
#include "store/store.h"
#include "sweep/as_plan.h"
#include "sweep/search_job.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "search";

std::atomic<bool> g_stop{false};

extern "C" void OnSearchSigint(int) {
  if (g_stop.load()) std::_Exit(130);  // a second Ctrl-C: leave now
  g_stop.store(true);
}

struct SearchFlags {
  sweep::SearchSettings settings;   // request: --over ... --no-saturation-stop (checked by ApplySearchRequest)
  bool no_saturation_stop = false;
  double client_rtt_us = kDefaultClientRttUs;
  DbFlags db;                       // db.db == "": trials are not stored
};

void AddSearchFlags(CLI::App& app, sim::SimSpec* spec, TargetFlags* tf, SearchFlags* f, WorkloadFlags* wf) {
  AddSimSpecFlags(app, spec);  // --model: the catalog model, or the served name with --base-url
  AddTargetFlags(app, tf, /*with_model=*/false);
  AddFlagRows(app, loadgen::SearchFlagRows(), &f->settings.request);
  app.add_flag("--no-saturation-stop", f->no_saturation_stop,
               "Do not stop (or mark) trials whose queue grows without bound")->group("Search");
  AddClientRttFlag(app, &f->client_rtt_us);  // simulated systems only
  AddDbFlags(app, &f->db,
             "every trial is stored as a point of one run, with its verdict and the search's decision, and the "
             "answer with the run", "search");
  AddWorkloadFlags(app, wf);
}

// The simulated system of a search that has no --base-url, with its band.
Status ResolveSearchedSystem(const CLI::App& app, const sim::SimSpec& spec, const SearchFlags& f,
                             sweep::SearchJob* s) {
  FRONTIER_RETURN_IF_ERROR(sweep::SimulateSearch(spec, s));
  FRONTIER_RETURN_IF_ERROR(UseSimulatedSystem(*s->config, app.count("--num-gpus") > 0, &s->w));
  FRONTIER_ASSIGN_OR_RETURN(s->sim_options.client_rtt_ns, ClientRttNanos(f.client_rtt_us));
  // Loaded once: every trial carries it into its result and stored point.
  std::string note;
  s->sim_options.band = BandOf(*s->config, spec.data_dir, &note);
  if (!s->sim_options.band) std::fprintf(stderr, "frontier search: %s", BandLine(std::nullopt, note).c_str());
  return Status::Ok();
}

// The search's own settings from its flags (--target-qps is what it finds).
Status CompleteSettings(const CLI::App& app, const std::string& command_line, SearchFlags* f) {
  if (app.count("--target-qps"))
    return InvalidArgument("--target-qps is what the search finds; leave it out (--start sets the first rate)");
  sweep::SearchSettings& settings = f->settings;
  settings.request.saturation_stop = !f->no_saturation_stop;
  settings.given_flags = GivenFlags(app, sweep::SearchOwnFlags());
  settings.command_line = command_line;
  settings.interrupt = &g_stop;
  return Status::Ok();
}

// The trial runner (a live server's options first) and, with --db, the stored run.
Status StartSearch(const TargetFlags& tf, const DbFlags& db, bool live, sweep::SearchJob* s) {
  std::optional<loadgen::BenchOptions> bench;
  if (live) {
    FRONTIER_ASSIGN_OR_RETURN(bench, ResolveTarget(tf, s->model, s->w));
    const std::string note =
        loadgen::ResolveVocabulary(bench->client, tf.vocab_size, &s->w.dataset, &bench->effective_settings);
    if (!note.empty()) std::fprintf(stderr, "frontier search: %s\n", note.c_str());
  }
  FRONTIER_RETURN_IF_ERROR(sweep::MakeSearchRunner(std::move(bench), s));
  if (db.db.empty()) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::OpenResultsDb(kCmd, db.db, std::cerr));
  const std::string& command_line = s->options.point.command_line;
  return sweep::StartSearchSink(std::move(store), db.run_label, store::RunProvenance(command_line), s);
}

// Runs the trials, each printed as it ends.
Result<loadgen::SearchResult> RunTrials(sweep::SearchJob& s) {
  std::signal(SIGINT, OnSearchSigint);
  Result<loadgen::SearchResult> result = sweep::RunSearchJob(s, [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  });
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
  sweep::SearchJob s;
  const bool live = app.count("--base-url") > 0;
  std::string bad = sweep::SearchUsageProblem(GivenIn(app), live);
  if (bad.empty() && !wf.requests_jsonl.empty()) bad = "--requests-jsonl is per run; a search writes --result-json";
  if (bad.empty()) bad = CheckDbFlags(app, f.db);
  if (!bad.empty()) return UsageError(kCmd, bad);
  wf.over_http = live;
  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  s.w = std::move(*w);
  s.model = spec.model;
  if (!live) {
    if (Status st = ResolveSearchedSystem(app, spec, f, &s); !st.ok()) return Fail(kCmd, st);
  }
  if (Status st = CompleteSettings(app, CommandLine(argc, argv), &f); !st.ok()) return Fail(kCmd, st);
  if (Status st = sweep::ResolveSearchOptions(f.settings, &s); !st.ok()) return Fail(kCmd, st);
  if (f.settings.request.as_plan) return Fail(kCmd, sweep::PrintPlan(sweep::SearchPlan(s, tf, wf, GivenIn(app))));
  if (Status st = StartSearch(tf, f.db, live, &s); !st.ok()) return Fail(kCmd, st);
  Result<loadgen::SearchResult> result = RunTrials(s);
  if (!result.ok()) return Fail(kCmd, result.status());
  std::printf("%s", loadgen::SearchAnswerText(*result, s.options).c_str());
  if (!s.w.result_json.empty()) std::fprintf(stderr, "frontier search: wrote %s\n", s.w.result_json.c_str());
  if (s.sink)
    std::fprintf(stderr, "frontier search: stored %zu trials as run %s in %s\n", result->trials.size(),
                 s.sink->run().Label().c_str(), RedactUrl(f.db.db).c_str());
  return result->stop_reason == "interrupted" ? 130 : 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(search, "Find the highest valid QPS or the best throughput per GPU under an SLO",
                          frontier::cli::RunSearch);
