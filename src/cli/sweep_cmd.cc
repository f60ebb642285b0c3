// `frontier sweep PLAN.yaml`: runs a plan's matrix into the results store.
#include <atomic>
#include <csignal>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/redact.h"
#include "store/records.h"
#include "store/store.h"
#include "sweep/executor.h"
#include "sweep/invocation.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/sessions.h"
#include "sweep/slurm.h"

namespace frontier::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSigint(int) { g_stop.store(true); }

struct SweepFlags {
  std::string plan_path, db = store::DefaultLocation();
  std::string executor, system, log_dir, scenario;
  bool resume = false, quiet = false;
};

void AddSweepFlags(CLI::App& app, SweepFlags* f) {
  app.add_option("plan", f->plan_path, "Plan file (YAML); see data/plans/ and docs/sweep.md")->required();
  app.add_option("--db", f->db, kDbHelp)->capture_default_str();
  app.add_flag("--resume", f->resume,
               "Continue the latest sweep of this plan in --db: run only the points not stored (with `search:`, "
               "the searches not finished, each from its first trial)");
  app.add_flag("-q,--quiet", f->quiet, "Print only the summary, not each point");
  app.add_option("--executor", f->executor,
                 "Where the points run: local (this process) or slurm (one batch job per system, "
                 "docs/scale-out.md) [the plan's executor:, else local]")
      ->check(CLI::IsMember({"local", "slurm"}));
  app.add_option("--system", f->system, "Run only this system of the plan (its points go into the same run); only this system's servers left "
                 "running by an earlier sweep are stopped");
  app.add_option("--log-dir", f->log_dir, "Slurm job scripts and logs [<db>.logs/slurm]");
  app.add_option("--scenario", f->scenario,
                 "Run every point under this MLPerf scenario (offline, server or interactive) and judge it; the "
                 "plan's load must be request_rate: [...], each value a point's target QPS (docs/sweep.md) "
                 "[the plan's scenario:]");
}

// The sweep's options: resume, the MLPerf table a scenario needs, the stop
// flag, provenance and progress.
Result<sweep::SweepOptions> MakeSweepOptions(const SweepFlags& f, const sweep::Plan& plan,
                                             const std::string& command_line) {
  sweep::SweepOptions o;
  o.resume = f.resume;
  FRONTIER_RETURN_IF_ERROR(sweep::LoadScenarioTables(plan, &o));
  o.stop = &g_stop;
  // The keys every stored run carries; the runner adds the plan's own (plan_file, planned_points).
  o.provenance = store::RunProvenance(command_line);
  // The progress line of a point or a system (stderr).
  o.on_progress = [quiet = f.quiet](const sweep::SweepProgress& p) {
    if (!quiet || sweep::AlwaysShown(p)) std::cerr << sweep::ProgressText(p);
  };
  return o;
}

// Where the points run: in this process, or as Slurm batch jobs.
std::unique_ptr<sweep::Executor> MakeExecutor(const SweepFlags& f, const char* argv0, store::Store* store,
                                              sweep::SweepOptions* o) {
  if (f.executor == "slurm")
    return sweep::MakeSlurmExecutor(sweep::SlurmOptionsFor(f.plan_path, f.db, f.log_dir, argv0));
  sweep::SessionOptions so;
  so.log_dir = sweep::LocalLogDir(f.db);
  so.store = store;
  so.stop = &g_stop;
  if (!f.quiet) {
    so.on_point_progress = [](int64_t ended, int64_t total) {
      if (total > 0 && ended < total) std::cerr << "         ... " << ended << "/" << total << " requests\n";
    };
  }
  // One system of a plan (a Slurm job's task) shares its machine with the
  // plan's other systems' jobs: only its own system's servers can be orphans
  // (left by an earlier job of it that was killed).
  o->stop_orphans = [system = f.system](store::Store& s) { return sweep::StopOrphanedServers(s, system); };
  return sweep::MakeLocalExecutor(sweep::DefaultSessionFactory(so));
}

int RunSweepCmd(int argc, char** argv) {
  CLI::App app("Run a sweep plan (systems x workloads x load points x repetitions, or one search per system and "
               "workload with `search:`) into the results store",
               "sweep");
  SweepFlags f;
  AddSweepFlags(app, &f);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  // From here on SIGINT and SIGTERM (scancel, Slurm's time limit) stop the
  // sweep between points and keep what is stored; a stop at any moment, even
  // before the first point, ends it with 130.
  std::signal(SIGINT, OnSigint);
  std::signal(SIGTERM, OnSigint);
  Result<sweep::Plan> plan = sweep::LoadInvocationPlan(f.plan_path, &f.executor, f.scenario, f.system);
  if (!plan.ok()) return Fail("sweep", plan.status());
  Result<std::unique_ptr<store::Store>> st = store::OpenStore(f.db, store::OpenMode::kCreate);
  if (!st.ok()) return Fail("sweep", st.status());
  if ((*st)->Created()) std::cerr << "frontier sweep: created results database " << RedactUrl(f.db) << "\n";
  Result<sweep::SweepOptions> o = MakeSweepOptions(f, *plan, CommandLine(argc, argv));
  if (!o.ok()) return Fail("sweep", o.status());
  std::unique_ptr<sweep::Executor> ex = MakeExecutor(f, argv[0], st->get(), &*o);
  const auto resume_hint = [&] {
    std::cout << "  interrupted: `frontier sweep " << f.plan_path << " --db '" << RedactUrl(f.db) << "'"
              << (f.executor == "slurm" ? " --executor slurm" : "") << " --resume` continues\n";
    return 130;
  };
  if (g_stop.load()) {
    std::cerr << "frontier sweep: interrupted before the first point; nothing was run\n";
    return resume_hint();
  }
  Result<sweep::SweepOutcome> out = ex->Run(*plan, **st, *o);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  // A stop that came while a server started or a job was submitted may end
  // the run with that step's error, or with nothing run: either way it was
  // interrupted, not finished.
  const bool interrupted = g_stop.load() || (out.ok() && out->interrupted);
  if (!out.ok()) {
    const int rc = Fail("sweep", out.status());
    return interrupted ? resume_hint() : rc;
  }
  std::cout << sweep::OutcomeText(*plan, *out, f.db);
  if (interrupted) return resume_hint();
  return out->broken.empty() ? 0 : 1;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(sweep, "Run a sweep plan into the results database",
                          frontier::cli::RunSweepCmd);
