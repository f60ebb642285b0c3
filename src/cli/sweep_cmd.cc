// `frontier sweep PLAN.yaml`: runs a plan's matrix into the results store.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/redact.h"
#include "core/terminal_text.h"
#include "loadgen/scenario.h"
#include "sim/engine/data_dir.h"
#include "store/store.h"
#include "sweep/executor.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/sessions.h"
#include "sweep/slurm.h"

namespace frontier::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSigint(int) { g_stop.store(true); }

std::string Duration(double s) {
  char b[32];
  if (s < 0) return "?";
  if (s < 60) {
    std::snprintf(b, sizeof b, "%.1fs", s);
  } else {
    std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  }
  return b;
}

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

// The plan as the flags narrow it (--scenario, --system); --executor resolved.
// A usage error is InvalidArgument.
Result<sweep::Plan> LoadSweepPlan(SweepFlags* f) {
  FRONTIER_ASSIGN_OR_RETURN(sweep::Plan plan, sweep::LoadPlan(f->plan_path));
  if (f->executor.empty()) f->executor = plan.executor;
  if (plan.search && f->executor == "slurm")
    return InvalidArgument("the slurm executor runs load grids; a plan with `search:` runs with --executor local");
  if (!f->scenario.empty()) {
    if (f->executor == "slurm")
      return InvalidArgument("--scenario with the slurm executor: the batch jobs read the plan file, so put "
                             "`scenario: " + f->scenario + "` in the plan instead");
    Result<sweep::Plan> judged = sweep::WithScenario(std::move(plan), f->scenario);
    if (!judged.ok()) return InvalidArgument(judged.status().message());
    plan = std::move(*judged);
  }
  if (!f->system.empty()) {
    Result<sweep::Plan> one = sweep::PlanForSystem(plan, f->system);
    if (!one.ok()) return InvalidArgument(one.status().message());
    plan = std::move(*one);
  }
  return plan;
}

// The progress line of a point or a system (stderr).
void PrintProgress(bool quiet, const sweep::SweepProgress& p) {
  const bool always = p.event == "retry" || p.event == "broken" || p.event == "skip" || p.event == "orphan";
  if (quiet && !always) return;
  // The names come from the plan (systems, workloads, model ids) and the
  // details from servers and catalogs: escaped, as db ls and report do.
  const std::string shown_system = EscapeControls(p.system), shown_point = EscapeControls(p.point);
  const std::string detail = TerminalSafe(p.detail);
  char line[512];
  std::snprintf(line, sizeof line, "[%4lld/%lld] %-16s %-34s %-6s elapsed %s  ETA %s",
                static_cast<long long>(p.done), static_cast<long long>(p.total),
                shown_system.c_str(), shown_point.c_str(), EscapeControls(p.event).c_str(), Duration(p.elapsed_s).c_str(),
                Duration(p.eta_s).c_str());
  if (p.event == "orphan") {
    std::cerr << "frontier sweep: " << detail << "\n";
    return;
  }
  if (p.event == "skip") {
    std::cerr << "[" << p.done << "/" << p.total << "] resuming: " << detail << "\n";
    return;
  }
  std::cerr << line;
  if (!detail.empty()) std::cerr << "  " << detail;
  std::cerr << "\n";
}

// The sweep's options: resume, the MLPerf table a scenario needs, the stop
// flag, provenance and progress.
Result<sweep::SweepOptions> MakeSweepOptions(const SweepFlags& f, const sweep::Plan& plan,
                                             const std::string& command_line) {
  sweep::SweepOptions o;
  o.resume = f.resume;
  if (plan.scenario && (plan.scenario->scenario || !plan.scenario->benchmark.empty())) {
    FRONTIER_ASSIGN_OR_RETURN(o.mlperf_benchmarks, loadgen::LoadMlperfBenchmarks(sim::DefaultDataDir()));
  }
  o.stop = &g_stop;
  // The keys every stored run carries; the runner adds the plan's own (plan_file, planned_points).
  o.provenance = RunProvenance(command_line);
  o.on_progress = [quiet = f.quiet](const sweep::SweepProgress& p) { PrintProgress(quiet, p); };
  return o;
}

// Where the points run: in this process, or as Slurm batch jobs.
std::unique_ptr<sweep::Executor> MakeExecutor(const SweepFlags& f, const char* argv0, store::Store* store,
                                              sweep::SweepOptions* o) {
  if (f.executor == "slurm") {
    // The jobs run on other machines: they get absolute paths, and a file database by its absolute path.
    namespace fs = std::filesystem;
    sweep::SlurmOptions sl;
    std::error_code ec;
    sl.frontier_bin = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) sl.frontier_bin = argv0;
    sl.plan_path = fs::absolute(f.plan_path).string();
    sl.db = f.db.find("://") != std::string::npos ? f.db : fs::absolute(f.db).string();
    sl.log_dir = fs::absolute(f.log_dir.empty() ? f.db + ".logs/slurm" : f.log_dir).string();
    return sweep::MakeSlurmExecutor(std::move(sl));
  }
  sweep::SessionOptions so;
  // Beside a SQLite file; in the working folder for a database on a server.
  so.log_dir = store::IsPostgresUrl(f.db) ? "frontier.logs" : f.db + ".logs";
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
  Result<sweep::Plan> plan = LoadSweepPlan(&f);
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
  const char* unit = plan->search ? " searches" : " points";
  std::cout << "sweep " << EscapeControls(plan->name) << ": " << out->ran << unit << " run, " << out->skipped
            << (plan->search ? " already finished, " : " already stored, ") << out->failed << " failed, of "
            << out->total << " into " << RedactUrl(f.db) << "\n";
  for (const auto& b : out->broken) std::cout << "  broken: " << TerminalSafe(b) << "\n";
  if (interrupted) return resume_hint();
  return out->broken.empty() ? 0 : 1;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(sweep, "Run a sweep plan into the results database",
                          frontier::cli::RunSweepCmd);
