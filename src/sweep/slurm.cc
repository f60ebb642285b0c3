#include "sweep/slurm.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>
#include <thread>

#include "core/atomic_file.h"

namespace frontier::sweep {
namespace {

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

struct ToolOutput {
  int exit_code = -1;  // -1: could not run (not installed), or killed by a signal
  std::string out;     // stdout and stderr together
};

// Runs a Slurm tool (found on PATH) without a shell and collects its output.
ToolOutput RunTool(const std::vector<std::string>& argv) {
  ToolOutput r;
  int fds[2];
  if (::pipe(fds) != 0) return r;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      if (r.out.size() < (1 << 20)) r.out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (r.exit_code == 127 && r.out.empty()) r.out = argv[0] + ": not found on PATH";
  return r;
}

std::string FirstWord(const std::string& s) {
  const std::string t = Trim(s);
  return t.substr(0, t.find_first_of(" \t\r\n+"));
}

// The job's state: squeue while the controller lists it, then scontrol (it
// keeps finished jobs for MinJobAge), then sacct (accounting). "" when none
// of them knows the job.
std::string JobState(const std::string& id) {
  ToolOutput q = RunTool({"squeue", "-h", "-j", id, "-o", "%T"});
  if (q.exit_code == 0 && !Trim(q.out).empty()) return FirstWord(q.out);
  ToolOutput c = RunTool({"scontrol", "show", "job", "-o", id});
  if (c.exit_code == 0) {
    const size_t at = c.out.find("JobState=");
    if (at != std::string::npos) return FirstWord(c.out.substr(at + 9));
  }
  ToolOutput a = RunTool({"sacct", "-n", "-X", "-P", "-j", id, "-o", "State"});
  if (a.exit_code == 0 && !Trim(a.out).empty()) return FirstWord(a.out);
  return "";
}

struct Job {
  size_t system = 0;
  std::string id;           // Slurm's job id ("" before submission)
  std::string state;        // last seen
  std::string log;
  int attempt = 0;
  bool final = false;
  int unknown_polls = 0;    // polls where no tool knew the job
  std::optional<int64_t> prior_run;  // the latest run of this system before this sweep
  int64_t expected = 0;     // the system's points in the matrix
  int64_t stored_before = 0;
};

class SlurmExecutor final : public Executor {
 public:
  explicit SlurmExecutor(SlurmOptions options) : o_(std::move(options)) {}
  std::string Name() const override { return "slurm"; }

  Result<SweepOutcome> Run(const Plan& plan, store::Store& store, const SweepOptions& options) override;

 private:
  // Writes the job's script and submits it; sets job->id and job->log.
  Status Submit(const Plan& plan, Job* job, bool resume);
  // The system's run this sweep writes into, if its job has created it (or, with resume, found it).
  Result<std::optional<store::RunInfo>> CurrentRun(const Plan& plan, const Job& job, bool resume, store::Store& store);

  SlurmOptions o_;
};

Status SlurmExecutor::Submit(const Plan& plan, Job* job, bool resume) {
  const SystemSpec& sys = plan.systems[job->system];
  SlurmJobSpec spec = MakeSlurmJob(plan, sys, o_, resume);
  const std::string script = o_.log_dir + "/" + sys.name + ".sbatch";
  FRONTIER_RETURN_IF_ERROR(WriteFileAtomically(script, spec.script));
  std::error_code ec;
  std::filesystem::permissions(script, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add, ec);
  std::vector<std::string> argv = {"sbatch"};
  argv.insert(argv.end(), spec.sbatch_args.begin(), spec.sbatch_args.end());
  argv.push_back(script);
  ToolOutput r = RunTool(argv);
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = Trim(r.out).substr(0, Trim(r.out).find(';'));
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return FailedPrecondition("sbatch refused the job of system " + sys.name + ": " + Trim(r.out) +
                              " (check the plan's slurm: partition, gres, time and sbatch_args)");
  }
  job->id = id;
  job->state = "PENDING";
  job->final = false;
  job->unknown_polls = 0;
  job->log = o_.log_dir + "/" + sys.name + "." + id + ".log";
  ++job->attempt;
  return Status::Ok();
}

Result<std::optional<store::RunInfo>> SlurmExecutor::CurrentRun(const Plan& plan, const Job& job, bool resume,
                                                                store::Store& store) {
  FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> run,
                            store.FindRun(plan.name, plan.hash, plan.systems[job.system].name));
  // Without --resume the job's sweep makes a new run; until it has, the latest one is an older sweep's.
  if (run && !resume && job.prior_run && run->id == *job.prior_run) return std::optional<store::RunInfo>();
  return run;
}

Result<SweepOutcome> SlurmExecutor::Run(const Plan& plan, store::Store& store, const SweepOptions& options) {
  if (o_.frontier_bin.empty() || o_.plan_path.empty() || o_.db.empty() || o_.log_dir.empty())
    return InvalidArgument("the Slurm executor needs the binary, plan, database and log folder");
  ToolOutput probe = RunTool({"sbatch", "--version"});
  if (probe.exit_code != 0) {
    return FailedPrecondition("executor slurm: cannot run sbatch (" + Trim(probe.out) +
                              "); run on a Slurm login node, or use --executor local");
  }
  std::error_code ec;
  std::filesystem::create_directories(o_.log_dir, ec);
  if (ec) return IoError("cannot create the job log folder " + o_.log_dir + ": " + ec.message());

  const std::vector<PointSpec> matrix = ExpandMatrix(plan);
  SweepOutcome out;
  out.total = static_cast<int64_t>(matrix.size());
  // The jobs' run times are not seen from here: no ETA, eta_s stays -1.
  ProgressReporter progress(out.total, options);
  SweepProgress& prog = progress.progress();
  auto report = [&](const std::string& system, const std::string& event, const std::string& detail) {
    prog.system = system;
    progress.Report(event, detail);
  };

  std::vector<Job> jobs(plan.systems.size());
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    Job& j = jobs[s];
    j.system = s;
    j.expected = std::count_if(matrix.begin(), matrix.end(), [&](const PointSpec& p) { return p.system == s; });
    FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> prior,
                              store.FindRun(plan.name, plan.hash, plan.systems[s].name));
    if (prior) j.prior_run = prior->id;
    if (options.resume && prior) {
      FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, store.PointKeys(prior->id));
      j.stored_before = static_cast<int64_t>(have.size());
    }
  }
  for (const Job& j : jobs) {
    prog.done += j.stored_before;
    prog.skipped += j.stored_before;
  }
  if (prog.skipped > 0) report("", "skip", std::to_string(prog.skipped) + " points already stored");

  for (Job& j : jobs) {
    const std::string& name = plan.systems[j.system].name;
    if (j.stored_before >= j.expected) {
      j.final = true;
      j.state = "STORED";
      continue;
    }
    if (Status s = Submit(plan, &j, options.resume); !s.ok()) {
      j.final = true;
      j.state = "REFUSED";
      out.broken.push_back(name + ": " + s.message());
      report(name, "broken", s.message());
      continue;
    }
    report(name, "submit", "job " + j.id + ", log " + j.log);
  }

  bool cancelling = false;
  auto active = [&] { return std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return !j.final; }); };
  while (active()) {
    // Sleeps in short steps so that Ctrl-C is answered promptly.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o_.poll_interval_s);
    while (std::chrono::steady_clock::now() < until && !(options.stop && options.stop->load() && !cancelling))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (options.stop && options.stop->load() && !cancelling) {
      cancelling = true;
      out.interrupted = true;
      for (const Job& j : jobs) {
        if (j.final) continue;
        (void)RunTool({"scancel", j.id});
        report(plan.systems[j.system].name, "cancel", "job " + j.id);
      }
    }
    int64_t done = 0;
    for (Job& j : jobs) {
      const std::string& name = plan.systems[j.system].name;
      FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> run, CurrentRun(plan, j, options.resume, store));
      if (run) {
        FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, store.PointKeys(run->id));
        done += static_cast<int64_t>(have.size());
      }
      if (j.final) continue;
      std::string state = JobState(j.id);
      if (state.empty()) {
        // Purged from the controller with no accounting: after a minute, taken as lost.
        if (++j.unknown_polls * o_.poll_interval_s < 60) continue;
        state = "LOST";
      }
      if (state != j.state) {
        j.state = state;
        report(name, "job", "job " + j.id + " " + state);
      }
      if (!SlurmStateFinal(state) && state != "LOST") continue;
      j.final = true;
      if (state == "COMPLETED") continue;
      if (state == "CANCELLED") {
        out.interrupted = true;
        continue;
      }
      // A sweep that recorded its system broken has already tried each point twice.
      if (run && !run->status.ok()) continue;
      if (j.attempt < o_.max_job_attempts && !cancelling) {
        const std::string old = j.id;
        // Resume when the failed job created its run (its stored points are kept).
        if (Status s = Submit(plan, &j, options.resume || run.has_value()); !s.ok()) {
          out.broken.push_back(name + ": " + s.message());
          report(name, "broken", s.message());
          continue;
        }
        report(name, "retry", "job " + old + " ended " + state + "; resubmitted as job " + j.id + ", log " + j.log);
        continue;
      }
      const std::string reason = "job " + j.id + " ended " + state + " (attempt " + std::to_string(j.attempt) +
                                 " of " + std::to_string(o_.max_job_attempts) + "); log: " + j.log;
      if (run) FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(run->id, store::SystemStatus::Broken(reason)));
      out.broken.push_back(name + ": " + reason);
      report(name, "broken", reason);
    }
    if (done != prog.done) {
      prog.done = done;
      report("", "stored", std::to_string(done) + " points stored");
    }
  }

  // What the jobs stored, by the store (the one place that knows).
  for (const Job& j : jobs) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> run, CurrentRun(plan, j, options.resume, store));
    int64_t stored = 0;
    if (run) {
      out.run_ids.push_back(run->id);
      FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, store.PointKeys(run->id));
      stored = static_cast<int64_t>(have.size());
      if (!run->status.ok()) {
        const std::string entry = plan.systems[j.system].name + ": " + run->status.reason;
        if (std::find(out.broken.begin(), out.broken.end(), entry) == out.broken.end()) out.broken.push_back(entry);
      }
    }
    out.skipped += j.stored_before;
    out.ran += std::max<int64_t>(0, stored - j.stored_before);
    const bool broken = std::any_of(out.broken.begin(), out.broken.end(), [&](const std::string& b) {
      return b.rfind(plan.systems[j.system].name + ": ", 0) == 0;
    });
    if (broken) out.failed += j.expected - stored;
  }
  return out;
}

}  // namespace

SlurmJobSpec MakeSlurmJob(const Plan& plan, const SystemSpec& system, const SlurmOptions& options, bool resume) {
  SlurmJobSpec spec;
  auto& a = spec.sbatch_args;
  a = {"--parsable", "--job-name=frontier-" + plan.name + "-" + system.name,
       "--output=" + options.log_dir + "/" + system.name + ".%j.log", "--nodes=1", "--ntasks=1",
       "--time=" + plan.slurm.time};
  if (!plan.slurm.partition.empty()) a.push_back("--partition=" + plan.slurm.partition);
  std::string gres = plan.slurm.gres;
  if (gres.empty() && !system.simulated()) gres = "gpu:" + std::to_string(system.gpus);
  if (!gres.empty() && gres != "none") a.push_back("--gres=" + gres);
  a.insert(a.end(), plan.slurm.sbatch_args.begin(), plan.slurm.sbatch_args.end());

  std::vector<std::string> cmd = {options.frontier_bin, "sweep", options.plan_path, "--db", options.db,
                                  "--system", system.name, "--executor", "local", "-q"};
  if (resume) cmd.push_back("--resume");
  cmd.insert(cmd.end(), options.job_args.begin(), options.job_args.end());
  std::string line = "exec srun --ntasks=1";
  for (const auto& c : cmd) line += " " + ShellQuote(c);
  spec.script = "#!/bin/sh\n"
                "# frontier sweep: system " + system.name + " of plan " + plan.name + " (" + plan.file + ")\n"
                "# the job's task runs this system's points into the database and then exits\n" +
                line + "\n";
  return spec;
}

bool SlurmStateFinal(const std::string& state) {
  static const char* kFinal[] = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                 "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED"};
  const std::string s = FirstWord(state);
  return std::any_of(std::begin(kFinal), std::end(kFinal), [&](const char* f) { return s == f; });
}

std::unique_ptr<Executor> MakeSlurmExecutor(SlurmOptions options) {
  return std::make_unique<SlurmExecutor>(std::move(options));
}

}  // namespace frontier::sweep
