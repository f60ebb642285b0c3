// invocation.h: the steps of one `frontier sweep` between its flags and the
// runner: the plan as --executor, --scenario and --system narrow it, the
// tables a judged plan needs, where a Slurm job or a local session keeps its
// logs, and the progress and outcome lines the command prints (text only).
//
// Thread safety: pure functions apart from LoadInvocationPlan and
// LoadScenarioTables reading files.
#pragma once

#include <string>

#include "core/status.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/slurm.h"

namespace frontier::sweep {

// The plan at `path` narrowed to `scenario` and `system` (either may be
// empty). `*executor` empty becomes the plan's executor. A combination the
// executor cannot run, an unknown scenario or system: InvalidArgument naming
// the flag; a workload file that does not open (CheckWorkloadFiles), before
// the command opens the results database.
Result<Plan> LoadInvocationPlan(const std::string& path, std::string* executor,
                                const std::string& scenario, const std::string& system);

// The MLPerf benchmark table when the plan's scenario judges its points, into
// `o`; nothing otherwise.
Status LoadScenarioTables(const Plan& plan, SweepOptions* o);

// A Slurm job's view of the invocation: the running binary (else argv0), the
// plan file, a file database and the log folder (default <db>.logs/slurm) as
// absolute paths, since the jobs run on other machines.
SlurmOptions SlurmOptionsFor(const std::string& plan_path, const std::string& db,
                             const std::string& log_dir, const char* argv0);

// Where a local sweep's servers write their logs: beside a SQLite file, in
// the working folder for a database on a server.
std::string LocalLogDir(const std::string& db);

// Whether a progress event is shown even with --quiet (retries, broken
// systems, resumed and orphan notices).
bool AlwaysShown(const SweepProgress& p);

// The progress line of a point or a system, with its newline; names and
// details escaped for a terminal.
std::string ProgressText(const SweepProgress& p);

// The closing summary ("sweep NAME: N points run, ...") and one line per
// broken system, each with its newline.
std::string OutcomeText(const Plan& plan, const SweepOutcome& out, const std::string& db);

}  // namespace frontier::sweep
