// invocation.cc: `frontier sweep`'s steps below its flags.
#include "sweep/invocation.h"

#include <cstdio>
#include <filesystem>

#include "core/data_dir.h"
#include "core/redact.h"
#include "core/terminal_text.h"
#include "loadgen/scenario.h"
#include "store/store.h"
#include "sweep/executor.h"

namespace frontier::sweep {
namespace {

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

}  // namespace

Result<Plan> LoadInvocationPlan(const std::string& path, std::string* executor,
                                const std::string& scenario, const std::string& system) {
  FRONTIER_ASSIGN_OR_RETURN(Plan plan, LoadPlan(path));
  FRONTIER_RETURN_IF_ERROR(CheckWorkloadFiles(plan));  // before the results database is opened
  if (executor->empty()) *executor = plan.executor;
  if (plan.search && *executor == "slurm")
    return InvalidArgument(
        "the slurm executor runs load grids; a plan with `search:` runs with --executor local");
  if (!scenario.empty()) {
    if (*executor == "slurm")
      return InvalidArgument(
          "--scenario with the slurm executor: the batch jobs read the plan file, so put "
          "`scenario: " +
          scenario + "` in the plan instead");
    Result<Plan> judged = WithScenario(std::move(plan), scenario);
    if (!judged.ok()) return InvalidArgument(judged.status().message());
    plan = std::move(*judged);
  }
  if (!system.empty()) {
    Result<Plan> one = PlanForSystem(plan, system);
    if (!one.ok()) return InvalidArgument(one.status().message());
    plan = std::move(*one);
  }
  return plan;
}

Status LoadScenarioTables(const Plan& plan, SweepOptions* o) {
  if (plan.scenario && (plan.scenario->scenario || !plan.scenario->benchmark.empty())) {
    FRONTIER_ASSIGN_OR_RETURN(o->mlperf_benchmarks,
                              loadgen::LoadMlperfBenchmarks(DefaultDataDir()));
  }
  return Status::Ok();
}

SlurmOptions SlurmOptionsFor(const std::string& plan_path, const std::string& db,
                             const std::string& log_dir, const char* argv0) {
  namespace fs = std::filesystem;
  SlurmOptions sl;
  std::error_code ec;
  sl.frontier_bin = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) sl.frontier_bin = argv0;
  sl.plan_path = fs::absolute(plan_path).string();
  sl.db = db.find("://") != std::string::npos ? db : fs::absolute(db).string();
  sl.log_dir = fs::absolute(log_dir.empty() ? db + ".logs/slurm" : log_dir).string();
  return sl;
}

std::string LocalLogDir(const std::string& db) {
  return store::IsPostgresUrl(db) ? "frontier.logs" : db + ".logs";
}

bool AlwaysShown(const SweepProgress& p) {
  return p.event == "retry" || p.event == "broken" || p.event == "skip" || p.event == "orphan";
}

std::string ProgressText(const SweepProgress& p) {
  // The names come from the plan (systems, workloads, model ids) and the
  // details from servers and catalogs: escaped, as db ls and report do.
  const std::string shown_system = EscapeControls(p.system), shown_point = EscapeControls(p.point);
  const std::string detail = TerminalSafe(p.detail);
  if (p.event == "orphan") return "frontier sweep: " + detail + "\n";
  if (p.event == "skip")
    return "[" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] resuming: " + detail +
           "\n";
  char line[512];
  std::snprintf(line, sizeof line, "[%4lld/%lld] %-16s %-34s %-6s elapsed %s  ETA %s",
                static_cast<long long>(p.done), static_cast<long long>(p.total),
                shown_system.c_str(), shown_point.c_str(), EscapeControls(p.event).c_str(),
                Duration(p.elapsed_s).c_str(), Duration(p.eta_s).c_str());
  return line + (detail.empty() ? "" : "  " + detail) + "\n";
}

std::string OutcomeText(const Plan& plan, const SweepOutcome& out, const std::string& db) {
  const char* unit = plan.search ? " searches" : " points";
  std::string text = "sweep " + EscapeControls(plan.name) + ": " + std::to_string(out.ran) + unit +
                     " run, " + std::to_string(out.skipped) +
                     (plan.search ? " already finished, " : " already stored, ") +
                     std::to_string(out.failed) + " failed, of " + std::to_string(out.total) +
                     " into " + RedactUrl(db) + "\n";
  for (const auto& b : out.broken) text += "  broken: " + TerminalSafe(b) + "\n";
  return text;
}

}  // namespace frontier::sweep
