// `frontier simulate`: predict a serving benchmark on catalogued hardware.
// Parsing and printing only; the simulator lives in src/sim.
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "cli/workload_flags.h"
#include "core/redact.h"
#include "loadgen/verdict.h"
#include "metrics/summary_text.h"
#include "sim/describe.h"
#include "sim/engine/data_dir.h"
#include "sim/simulate_job.h"
#include "sweep/as_plan.h"
#include "sweep/point_store.h"
#include "sweep/system_run.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "simulate";

struct SimFlags {
  double client_rtt_us = kDefaultClientRttUs;
  bool explain = false, list = false;
};

// Exit status 1 and the commonest reasons on the terminal when not one
// request of a run succeeded (the reasons are otherwise only in the JSONL).
int AllFailed(const RunResult& run, const std::string& what) {
  std::cerr << "frontier simulate: every request" << what << " failed:\n" << metrics::TopFailureReasons(run);
  return 1;
}

void AddSimulateFlags(CLI::App& app, SimFlags* f, sim::SimulateRequest* r, WorkloadFlags* wf, DbFlags* db) {
  AddSimSpecFlags(app, &r->spec);
  app.add_option("--concurrency", r->concurrency, "Sweep: comma-separated max concurrencies, one run each (open sessions, for a session workload)")->group("Load");
  AddClientRttFlag(app, &f->client_rtt_us);
  AddFlagRows(app, sim::SimulateFlagRows(), r);
  app.get_option("--max-requests")->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  app.get_option("--max-memory-mb")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_flag("--explain", f->explain, "Print where a step's time goes and what bounds it")->group("Output");
  app.add_flag("--list", f->list, "List the catalogued models, hardware and stack versions, then exit")->group("Output");
  AddWorkloadFlags(app, wf);
  AddDbFlags(app, db,
             "the simulated points are stored as one run, each point when it ends: summary, verdict (with "
             "--scenario or --slo), per-request rows and series, source simulated",
             "simulate");
}

// One invocation: what sim/ resolved and runs, and where its points are stored.
struct Invocation {
  SimFlags f;
  DbFlags db;
  sim::Simulation s;
  std::optional<sweep::PointSink> sink;
  sim::PointCallbacks callbacks;  // bound to sink

  void StoredNote() const {
    if (sink)
      std::cerr << "frontier simulate: stored " << sink->stored() << " point(s) as run "
                << sink->run().Label() << " in " << RedactUrl(db.db) << "\n";
  }
};

// The point options every point shares; the database is opened, and the run
// created, before anything is simulated: a database that cannot be written
// fails now.
Status StartPoints(const CLI::App& app, const std::string& command_line, Invocation* v) {
  std::map<std::string, std::string> requested = v->s.w.requested;
  for (const auto& [k, val] : GivenFlags(app, sim::SimulateOwnFlags())) requested[k] = val;
  sim::SharePointOptions(std::move(requested), command_line, &v->s);
  if (v->db.db.empty() || v->s.request.best_deployment) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(
      sweep::PointSink sink,
      sweep::StartPointSink(kCmd, v->db,
                            sweep::CommandRun(sweep::SimulatedSystem(v->s.request.spec, v->s.config),
                                              v->s.w.effective, v->s.point.command_line),
                            std::cerr));
  v->sink.emplace(std::move(sink));
  v->callbacks.record = [r = &*v->sink](const auto&... a) { return r->Record(a...); };
  v->callbacks.broken = [r = &*v->sink](const Status& failed) { return r->Failed(failed); };
  return Status::Ok();
}

// One point (no --concurrency): run, store, print.
int SimulateOnePoint(Invocation& v) {
  Result<sim::OnePoint> one = sim::SimulateOnePoint(v.s, v.callbacks);
  if (!one.ok()) return Fail(kCmd, one.status());
  v.StoredNote();
  const loadgen::PointOutcome& out = one->out;
  std::cout << metrics::SummaryText(out.run, out.summary);
  std::printf("%s", sim::PrefixCacheLine(one->stats).c_str());
  if (v.f.explain) std::printf("%s", sim::ExplainRun(v.s.config, one->stats).c_str());
  if (out.verdict) std::printf("%s", loadgen::FormatVerdict(*out.verdict, *v.s.rules).c_str());
  return out.summary.completed == 0 ? AllFailed(out.run, "") : 0;
}

// --concurrency: one point per level (or --best-deployment's search over layouts).
int SimulateSweep(Invocation& v) {
  if (v.s.request.best_deployment) {
    Result<sim::SearchResult> r = sim::SearchBestDeployment(v.s);
    if (!r.ok()) return Fail(kCmd, r.status());
    std::printf("%s", sim::DescribeSearch(*r).c_str());
    return 0;
  }
  std::printf("%s", sim::SweepTableHeader().c_str());
  std::string failed_points;  // the reasons of points where every request failed
  Result<std::vector<sim::SweepPoint>> swept =
      sim::SimulateSweep(v.s, v.callbacks, [&](const sim::SweepPoint& p, const RunResult& run) {
        if (p.summary.completed == 0)
          failed_points += "concurrency " + std::to_string(p.concurrency) + ":\n" + metrics::TopFailureReasons(run);
      });
  v.StoredNote();
  if (!swept.ok()) return Fail(kCmd, swept.status());
  std::printf("%s", sim::SweepTable(*swept).c_str());
  if (!failed_points.empty()) {
    std::fflush(stdout);
    std::cerr << "frontier simulate: every request of a point failed:\n" << failed_points;
  }
  if (v.f.explain) std::printf("%s", sim::ExplainSweep(v.s.config, *swept).c_str());
  return failed_points.empty() ? 0 : 1;
}

int RunSimulate(int argc, char** argv) {
  CLI::App app{"Predict a serving benchmark of a catalogued model on catalogued hardware", kCmd};
  Invocation v;
  sim::SimulateRequest& req = v.s.request;
  WorkloadFlags wf;
  AddSimulateFlags(app, &v.f, &req, &wf, &v.db);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  const FlagGiven given = GivenIn(app);
  std::string bad = CheckDbFlags(app, v.db);
  if (bad.empty()) bad = sim::SimulateUsageProblem(given, req, v.f.list, !v.db.db.empty(), v.f.client_rtt_us);
  if (!bad.empty()) return UsageError(kCmd, bad);
  if (v.f.list) return std::printf("%s", sim::DescribeCatalogs(sim::DefaultDataDir()).c_str()) < 0;
  sim::ApplySimulateFlags(given, v.f.client_rtt_us, &v.s);
  Result<sim::SimConfig> config = sim::ResolveDeployment(req.spec, req.best_deployment);
  if (!config.ok()) return Fail(kCmd, config.status());
  v.s.config = *config;
  Result<ResolvedWorkload> w = ResolveWorkload(wf);
  if (!w.ok()) return Fail(kCmd, w.status());
  if (Status st = sim::ResolveSimulatedWorkload(std::move(*w), &v.s); !st.ok()) return Fail(kCmd, st);
  if (req.as_plan) return Fail(kCmd, sweep::PrintPlan(sweep::SimulatePlan(v.s, wf, given)));
  if (Status st = StartPoints(app, CommandLine(argc, argv), &v); !st.ok()) return Fail(kCmd, st);
  if (!req.best_deployment) {
    std::printf("%s", sim::DescribeConfig(v.s.config).c_str());
    // How sure the prediction is: loaded once, printed here, and carried by
    // every point into its result JSON and stored record.
    std::string note;
    v.s.options.band = BandOf(v.s.config, req.spec.data_dir, &note);
    std::printf("%s", BandLine(v.s.options.band, note).c_str());
  }
  return req.concurrency.empty() ? SimulateOnePoint(v) : SimulateSweep(v);
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(simulate, "Predict a serving benchmark on catalogued GPUs (virtual time)",
                          frontier::cli::RunSimulate);
