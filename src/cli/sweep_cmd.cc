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

int RunSweepCmd(int argc, char** argv) {
  CLI::App app("Run a sweep plan (systems x workloads x load points x repetitions, or one search per system and "
               "workload with `search:`) into the results store",
               "sweep");
  std::string plan_path, db = store::DefaultLocation();
  std::string executor, system, log_dir, scenario;
  bool resume = false, quiet = false;
  app.add_option("plan", plan_path, "Plan file (YAML); see data/plans/ and docs/sweep.md")->required();
  app.add_option("--db", db, kDbHelp)->capture_default_str();
  app.add_flag("--resume", resume,
               "Continue the latest sweep of this plan in --db: run only the points not stored (with `search:`, "
               "the searches not finished, each from its first trial)");
  app.add_flag("-q,--quiet", quiet, "Print only the summary, not each point");
  app.add_option("--executor", executor,
                 "Where the points run: local (this process) or slurm (one batch job per system, "
                 "docs/scale-out.md) [the plan's executor:, else local]")
      ->check(CLI::IsMember({"local", "slurm"}));
  app.add_option("--system", system, "Run only this system of the plan (its points go into the same run); only this system's servers left "
                 "running by an earlier sweep are stopped");
  app.add_option("--log-dir", log_dir, "Slurm job scripts and logs [<db>.logs/slurm]");
  app.add_option("--scenario", scenario,
                 "Run every point under this MLPerf scenario (offline, server or interactive) and judge it; the "
                 "plan's load must be request_rate: [...], each value a point's target QPS (docs/sweep.md) "
                 "[the plan's scenario:]");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  // From here on SIGINT and SIGTERM (scancel, Slurm's time limit) stop the
  // sweep between points and keep what is stored; a stop at any moment, even
  // before the first point, ends it with 130.
  std::signal(SIGINT, OnSigint);
  std::signal(SIGTERM, OnSigint);

  Result<sweep::Plan> plan = sweep::LoadPlan(plan_path);
  if (!plan.ok()) return Fail("sweep", plan.status());
  if (executor.empty()) executor = plan->executor;
  if (plan->search && executor == "slurm")
    return UsageError("sweep", "the slurm executor runs load grids; a plan with `search:` runs with --executor local");
  if (!scenario.empty()) {
    if (executor == "slurm")
      return UsageError("sweep", "--scenario with the slurm executor: the batch jobs read the plan file, so put "
                                 "`scenario: " + scenario + "` in the plan instead");
    Result<sweep::Plan> judged = sweep::WithScenario(std::move(*plan), scenario);
    if (!judged.ok()) return UsageError("sweep", judged.status().message());
    plan = std::move(judged);
  }
  if (!system.empty()) {
    Result<sweep::Plan> one = sweep::PlanForSystem(*plan, system);
    if (!one.ok()) return UsageError("sweep", one.status().message());
    plan = std::move(one);
  }
  Result<std::unique_ptr<store::Store>> st = store::OpenStore(db, store::OpenMode::kCreate);
  if (!st.ok()) return Fail("sweep", st.status());
  if ((*st)->Created()) std::cerr << "frontier sweep: created results database " << RedactUrl(db) << "\n";

  sweep::SweepOptions o;
  o.resume = resume;
  if (plan->scenario && (plan->scenario->scenario || !plan->scenario->benchmark.empty())) {
    Result<std::vector<loadgen::MlperfBenchmark>> table = loadgen::LoadMlperfBenchmarks(sim::DefaultDataDir());
    if (!table.ok()) return Fail("sweep", table.status());
    o.mlperf_benchmarks = std::move(*table);
  }
  o.stop = &g_stop;
  // The keys every stored run carries; the runner adds the plan's own (plan_file, planned_points).
  o.provenance = RunProvenance(CommandLine(argc, argv));
  o.on_progress = [&](const sweep::SweepProgress& p) {
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
  };
  sweep::SessionOptions so;
  // Beside a SQLite file; in the working folder for a database on a server.
  so.log_dir = store::IsPostgresUrl(db) ? "frontier.logs" : db + ".logs";
  so.store = st->get();
  so.stop = &g_stop;
  if (!quiet) {
    so.on_point_progress = [](int64_t ended, int64_t total) {
      if (total > 0 && ended < total) std::cerr << "         ... " << ended << "/" << total << " requests\n";
    };
  }
  std::unique_ptr<sweep::Executor> ex;
  if (executor == "slurm") {
    // The jobs run on other machines: they get absolute paths, and a file database by its absolute path.
    namespace fs = std::filesystem;
    sweep::SlurmOptions sl;
    std::error_code ec;
    sl.frontier_bin = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) sl.frontier_bin = argv[0];
    sl.plan_path = fs::absolute(plan_path).string();
    sl.db = db.find("://") != std::string::npos ? db : fs::absolute(db).string();
    sl.log_dir = fs::absolute(log_dir.empty() ? db + ".logs/slurm" : log_dir).string();
    ex = sweep::MakeSlurmExecutor(std::move(sl));
  } else {
    // One system of a plan (a Slurm job's task) shares its machine with the
    // plan's other systems' jobs: only its own system's servers can be orphans
    // (left by an earlier job of it that was killed).
    o.stop_orphans = [system](store::Store& store) { return sweep::StopOrphanedServers(store, system); };
    ex = sweep::MakeLocalExecutor(sweep::DefaultSessionFactory(so));
  }
  const auto resume_hint = [&] {
    std::cout << "  interrupted: `frontier sweep " << plan_path << " --db '" << RedactUrl(db) << "'"
              << (executor == "slurm" ? " --executor slurm" : "") << " --resume` continues\n";
    return 130;
  };
  if (g_stop.load()) {
    std::cerr << "frontier sweep: interrupted before the first point; nothing was run\n";
    return resume_hint();
  }
  Result<sweep::SweepOutcome> out = ex->Run(*plan, **st, o);
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
            << out->total << " into " << RedactUrl(db) << "\n";
  for (const auto& b : out->broken) std::cout << "  broken: " << TerminalSafe(b) << "\n";
  if (interrupted) return resume_hint();
  return out->broken.empty() ? 0 : 1;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(sweep, "Run a sweep plan into the results database",
                          frontier::cli::RunSweepCmd);
