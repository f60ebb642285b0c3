// slurm.h: the Slurm executor (executor.h). Each system with points left
// becomes one batch job:
//
//   sbatch --parsable --job-name frontier:<plan>:<system> --output <log_dir>/<system>.%j.log
//          [--partition P] [--gres G] --time T [plan's sbatch_args] <log_dir>/<system>.sbatch
//
// whose script runs, on the node Slurm picks, one task:
//
//   srun --ntasks=1 FRONTIER sweep PLAN --db DB --system NAME --executor local [--resume] -q
//
// That inner sweep launches the system's server when the plan says `launch:`
// (so the server runs on the job's node, with the job's GPUs), runs the points
// and stores each one as it is measured, exactly as a local sweep does. The
// jobs inherit this process's environment (sbatch's default --export=ALL).
//
// Tracking: squeue while a job is known to the controller, then scontrol and
// sacct for its final state. A job that ends COMPLETED is done. A job that
// ends otherwise (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, ...)
// is submitted once more with --resume, so it runs only the points not yet
// stored, unless its sweep already recorded the system as broken (a point
// failed twice, the server would not start: the same rule as local sweeps).
// A job that fails twice leaves the system broken: its run's status says so,
// with the log's path. A job CANCELLED (scancel) is not retried: the sweep
// ends interrupted and `frontier sweep PLAN --executor slurm --resume`
// submits what is left. Ctrl-C or SIGTERM (options.stop) cancels this
// sweep's jobs (scancel) and ends the polling at once.
//
// Deadlines: every sbatch, squeue, scontrol, sacct and scancel call is killed
// at slurm.tool_timeout_s (30 s). A submission that times out leaves its
// system broken; a job whose state look-up times out at 3 polls in a row is
// cancelled and its system broken. A state the sweep does not know
// (SlurmStateKnown) is not waited on either: the job is cancelled and its
// system broken, naming the job and the state.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sweep/executor.h"

namespace frontier::sweep {

struct SlurmOptions {
  std::string frontier_bin;              // the binary the jobs run (absolute; required)
  std::string plan_path;                 // the plan file as the jobs read it (absolute; required)
  std::string db;                        // the database as the jobs open it: absolute path or URL
  std::string log_dir;                   // job scripts and logs (created; required)
  double poll_interval_s = 0;            // between squeue calls; 0: the plan's slurm.poll_s (2 s)
  double tool_timeout_s = 0;             // each Slurm tool call; 0: the plan's slurm.tool_timeout_s (30 s)
  int max_job_attempts = 2;              // first job + one retry
  std::vector<std::string> job_args;     // more arguments for the jobs' `frontier sweep`
};

// The job's sbatch arguments (without the script) and its script's text, for
// `system` of `plan`; `resume` adds --resume to the job's sweep.
struct SlurmJobSpec {
  std::vector<std::string> sbatch_args;
  std::string script;
};
SlurmJobSpec MakeSlurmJob(const Plan& plan, const SystemSpec& system, const SlurmOptions& options,
                          bool resume);

// A Slurm job state as the tools print it ("CANCELLED by 0" -> "CANCELLED");
// true when the job will not run again.
bool SlurmStateFinal(const std::string& state);
// True for a state Slurm documents (final or not: PENDING, RUNNING, ...).
bool SlurmStateKnown(const std::string& state);

std::unique_ptr<Executor> MakeSlurmExecutor(SlurmOptions options);

}  // namespace frontier::sweep
