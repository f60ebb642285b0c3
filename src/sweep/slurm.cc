#include "sweep/slurm.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

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
#include "core/parse.h"
#include "core/terminal_text.h"

namespace frontier::sweep {
namespace {

// Polls in a row at which a tool timed out before a job's system is broken.
constexpr int kMaxFailedPolls = 3;

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
  bool timed_out = false;  // killed at the tool's timeout (out says so)
  bool stopped = false;    // killed because the sweep was stopped (SIGINT, SIGTERM)
  std::string out;     // stdout and stderr together
};

// How long a Slurm tool may take, and the flag that ends the wait early.
struct ToolLimits {
  double timeout_s = 30;
  const std::atomic<bool>* stop = nullptr;
};

// Runs a Slurm tool (found on PATH) without a shell and collects its output.
// The tool runs in its own process group; at `limits.timeout_s`, or when
// `limits.stop` is set, the group is killed (SIGKILL) and the call returns at
// once, so a tool that hangs (a controller that does not answer, a stuck NFS
// home) never hangs the sweep.
ToolOutput RunTool(const std::vector<std::string>& argv, const ToolLimits& limits) {
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
    ::setpgid(0, 0);
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
  ::setpgid(pid, pid);  // also here: the child may not have run yet when it is killed
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.timeout_s);
  char buf[4096];
  bool eof = false;
  while (!eof) {
    if (limits.stop && limits.stop->load()) {
      r.stopped = true;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int n = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 50)));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got > 0) {
      if (r.out.size() < (1 << 20)) r.out.append(buf, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      eof = true;
    }
  }
  ::close(fds[0]);
  int st = 0;
  if (!eof) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  } else {
    // The output is closed; the tool itself gets what is left of its time to exit.
    while (std::chrono::steady_clock::now() < deadline && !(limits.stop && limits.stop->load())) {
      const pid_t w = ::waitpid(pid, &st, WNOHANG);
      if (w == pid) {
        r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (r.exit_code == 127 && r.out.empty()) r.out = argv[0] + ": not found on PATH";
        return r;
      }
      if (w < 0 && errno != EINTR) return r;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.stopped = limits.stop && limits.stop->load();
    r.timed_out = !r.stopped;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = -1;
  r.out = r.stopped ? argv[0] + " was stopped: the sweep is interrupted"
                    : argv[0] + " did not finish within " + FormatNumber(limits.timeout_s) +
                          " s (slurm.tool_timeout_s); killed";
  return r;
}

std::string FirstWord(const std::string& s) {
  const std::string t = Trim(s);
  return t.substr(0, t.find_first_of(" \t\r\n+"));
}

// A job's state as one of the tools gave it, or why none could.
struct StateAnswer {
  std::string state;  // "" when no tool knows the job (or one failed: `error`)
  std::string tool;   // the tool that answered
  std::string error;  // a tool that timed out or was stopped
};

// The job's state: squeue while the controller lists it, then scontrol (it
// keeps finished jobs for MinJobAge), then sacct (accounting). "" when none
// of them knows the job. A tool that times out ends the look-up with `error`
// (the next tools ask the same controller).
StateAnswer JobState(const std::string& id, const ToolLimits& limits) {
  StateAnswer a;
  auto failed = [&](const ToolOutput& t) {
    if (!t.timed_out && !t.stopped) return false;
    a.error = t.out;
    return true;
  };
  ToolOutput q = RunTool({"squeue", "-h", "-j", id, "-o", "%T"}, limits);
  if (failed(q)) return a;
  a.tool = "squeue";
  if (q.exit_code == 0 && !Trim(q.out).empty()) {
    a.state = FirstWord(q.out);
    return a;
  }
  ToolOutput c = RunTool({"scontrol", "show", "job", "-o", id}, limits);
  if (failed(c)) return a;
  a.tool = "scontrol";
  if (c.exit_code == 0) {
    const size_t at = c.out.find("JobState=");
    if (at != std::string::npos) {
      a.state = FirstWord(c.out.substr(at + 9));
      return a;
    }
  }
  ToolOutput s = RunTool({"sacct", "-n", "-X", "-P", "-j", id, "-o", "State"}, limits);
  if (failed(s)) return a;
  a.tool = "sacct";
  if (s.exit_code == 0 && !Trim(s.out).empty()) a.state = FirstWord(s.out);
  return a;
}

struct Job {
  size_t system = 0;
  std::string id;           // Slurm's job id ("" before submission)
  std::string state;        // last seen
  std::string log;
  int attempt = 0;
  bool final = false;
  int unknown_polls = 0;    // polls where no tool knew the job
  int failed_polls = 0;     // consecutive polls where a tool timed out
  std::optional<int64_t> prior_run;  // the latest run of this system before this sweep
  int64_t expected = 0;     // the system's points in the matrix
  int64_t stored_before = 0;
};

// One Run: its jobs, what they came to, and its progress lines.
struct SlurmSweep {
  SlurmSweep(const Plan& p, store::Store& s, const SweepOptions& o, int64_t total)
      : plan(p), store(s), options(o), progress(total, o) {
    out.total = total;
  }

  void Report(const std::string& system, const std::string& event, const std::string& detail) {
    progress.progress().system = system;
    progress.Report(event, detail);
  }
  bool Active() const {
    return std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return !j.final; });
  }
  bool StopAsked() const { return options.stop && options.stop->load(); }
  void Broken(const std::string& name, const std::string& reason) {
    out.broken.push_back(name + ": " + reason);
    Report(name, "broken", reason);
  }

  const Plan& plan;
  store::Store& store;
  const SweepOptions& options;
  SweepOutcome out;
  // The jobs' run times are not seen from here: no ETA, eta_s stays -1.
  ProgressReporter progress;
  std::vector<Job> jobs;
  double poll_s = 0;
  bool cancelling = false;
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
  // Checks the options and that sbatch runs, creates the log folder; returns the poll interval.
  Result<double> Prepare(const Plan& plan, const SweepOptions& options);
  // One job per system, with its points and (with resume) those already stored.
  Status MakeJobs(SlurmSweep& sw, const std::vector<PointSpec>& matrix);
  void SubmitAll(SlurmSweep& sw);
  // Cancels every job still running (the sweep was stopped).
  void CancelAll(SlurmSweep& sw);
  // One pass over the jobs: points stored so far, and each job's state.
  Status PollJobs(SlurmSweep& sw);
  Status OnJobState(SlurmSweep& sw, Job& j, const StateAnswer& answer, const std::optional<store::RunInfo>& run);
  // A job that reached a final state (or was lost): done, retried or broken.
  Status OnJobEnded(SlurmSweep& sw, Job& j, const std::string& state, const std::optional<store::RunInfo>& run);
  // Cancels a job whose fate this sweep cannot follow and breaks its system.
  void CancelBroken(SlurmSweep& sw, Job& j, const std::string& reason);
  // What the jobs stored, by the store (the one place that knows).
  Status Tally(SlurmSweep& sw);

  SlurmOptions o_;
  ToolLimits limits_;
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
  ToolOutput r = RunTool(argv, limits_);
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

Result<double> SlurmExecutor::Prepare(const Plan& plan, const SweepOptions& options) {
  if (o_.frontier_bin.empty() || o_.plan_path.empty() || o_.db.empty() || o_.log_dir.empty())
    return InvalidArgument("the Slurm executor needs the binary, plan, database and log folder");
  limits_.timeout_s = o_.tool_timeout_s > 0 ? o_.tool_timeout_s : plan.slurm.tool_timeout_s;
  limits_.stop = options.stop;
  const double poll_s = o_.poll_interval_s > 0 ? o_.poll_interval_s : plan.slurm.poll_s;
  ToolOutput probe = RunTool({"sbatch", "--version"}, limits_);
  if (probe.exit_code != 0) {
    return FailedPrecondition("executor slurm: cannot run sbatch (" + Trim(probe.out) +
                              "); run on a Slurm login node, or use --executor local");
  }
  std::error_code ec;
  std::filesystem::create_directories(o_.log_dir, ec);
  if (ec) return IoError("cannot create the job log folder " + o_.log_dir + ": " + ec.message());
  return poll_s;
}

Status SlurmExecutor::MakeJobs(SlurmSweep& sw, const std::vector<PointSpec>& matrix) {
  const Plan& plan = sw.plan;
  sw.jobs.resize(plan.systems.size());
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    Job& j = sw.jobs[s];
    j.system = s;
    j.expected = std::count_if(matrix.begin(), matrix.end(), [&](const PointSpec& p) { return p.system == s; });
    FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> prior,
                              sw.store.FindRun(plan.name, plan.hash, plan.systems[s].name));
    if (prior) j.prior_run = prior->id;
    if (sw.options.resume && prior) {
      FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, sw.store.PointKeys(prior->id));
      j.stored_before = static_cast<int64_t>(have.size());
    }
  }
  SweepProgress& prog = sw.progress.progress();
  for (const Job& j : sw.jobs) {
    prog.done += j.stored_before;
    prog.skipped += j.stored_before;
  }
  if (prog.skipped > 0) sw.Report("", "skip", std::to_string(prog.skipped) + " points already stored");
  return Status::Ok();
}

void SlurmExecutor::SubmitAll(SlurmSweep& sw) {
  for (Job& j : sw.jobs) {
    const std::string& name = sw.plan.systems[j.system].name;
    if (j.stored_before >= j.expected) {
      j.final = true;
      j.state = "STORED";
      continue;
    }
    if (Status s = Submit(sw.plan, &j, sw.options.resume); !s.ok()) {
      j.final = true;
      j.state = "REFUSED";
      sw.Broken(name, s.message());
      continue;
    }
    sw.Report(name, "submit", "job " + j.id + ", log " + j.log);
  }
}

void SlurmExecutor::CancelAll(SlurmSweep& sw) {
  // scancel gets its own timeout (the stop flag would end it at once), and
  // the polling ends here: jobs a hung controller never reports cancelled
  // must not keep a stopped sweep alive. --resume submits what is left.
  const ToolLimits cancel{limits_.timeout_s, nullptr};
  for (Job& j : sw.jobs) {
    if (j.final) continue;
    ToolOutput c = RunTool({"scancel", j.id}, cancel);
    sw.Report(sw.plan.systems[j.system].name, "cancel",
              "job " + j.id + (c.exit_code == 0 ? std::string() : ": " + Trim(c.out)));
    j.final = true;
    j.state = "CANCELLED";
  }
}

void SlurmExecutor::CancelBroken(SlurmSweep& sw, Job& j, const std::string& reason) {
  const ToolLimits cancel{limits_.timeout_s, nullptr};
  (void)RunTool({"scancel", j.id}, cancel);
  j.final = true;
  sw.Broken(sw.plan.systems[j.system].name, reason);
}

Status SlurmExecutor::PollJobs(SlurmSweep& sw) {
  int64_t done = 0;
  for (Job& j : sw.jobs) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> run, CurrentRun(sw.plan, j, sw.options.resume, sw.store));
    if (run) {
      FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, sw.store.PointKeys(run->id));
      done += static_cast<int64_t>(have.size());
    }
    if (j.final) continue;
    const StateAnswer answer = JobState(j.id, limits_);
    if (sw.StopAsked()) break;  // cancelled on the next pass
    FRONTIER_RETURN_IF_ERROR(OnJobState(sw, j, answer, run));
  }
  SweepProgress& prog = sw.progress.progress();
  if (done != prog.done) {
    prog.done = done;
    sw.Report("", "stored", std::to_string(done) + " points stored");
  }
  return Status::Ok();
}

Status SlurmExecutor::OnJobState(SlurmSweep& sw, Job& j, const StateAnswer& answer,
                                 const std::optional<store::RunInfo>& run) {
  const std::string& name = sw.plan.systems[j.system].name;
  std::string state = answer.state;
  if (!answer.error.empty()) {
    // A controller that does not answer three polls running: the job's
    // fate is unknown, so the system is broken (its job cancelled).
    if (++j.failed_polls < kMaxFailedPolls) return Status::Ok();
    CancelBroken(sw, j, "job " + j.id + ": " + answer.error + " at " + std::to_string(j.failed_polls) +
                            " polls running; the job was cancelled");
    return Status::Ok();
  }
  j.failed_polls = 0;
  if (state.empty()) {
    // Purged from the controller with no accounting: after a minute, taken as lost.
    if (++j.unknown_polls * sw.poll_s < 60) return Status::Ok();
    state = "LOST";
  } else if (!SlurmStateKnown(state)) {
    // A state this sweep does not know might mean anything: it is not waited on.
    CancelBroken(sw, j, "job " + j.id + ": " + answer.tool + " printed the unknown job state '" +
                            TerminalSafe(state.substr(0, 60)) + "'; the job was cancelled");
    return Status::Ok();
  }
  if (state != j.state) {
    j.state = state;
    sw.Report(name, "job", "job " + j.id + " " + state);
  }
  if (!SlurmStateFinal(state) && state != "LOST") return Status::Ok();
  return OnJobEnded(sw, j, state, run);
}

Status SlurmExecutor::OnJobEnded(SlurmSweep& sw, Job& j, const std::string& state,
                                 const std::optional<store::RunInfo>& run) {
  const std::string& name = sw.plan.systems[j.system].name;
  j.final = true;
  if (state == "COMPLETED") return Status::Ok();
  if (state == "CANCELLED") {
    sw.out.interrupted = true;
    return Status::Ok();
  }
  // A sweep that recorded its system broken has already tried each point twice.
  if (run && !run->status.ok()) return Status::Ok();
  if (j.attempt < o_.max_job_attempts && !sw.cancelling) {
    const std::string old = j.id;
    // Resume when the failed job created its run (its stored points are kept).
    if (Status s = Submit(sw.plan, &j, sw.options.resume || run.has_value()); !s.ok()) {
      sw.Broken(name, s.message());
      return Status::Ok();
    }
    sw.Report(name, "retry", "job " + old + " ended " + state + "; resubmitted as job " + j.id + ", log " + j.log);
    return Status::Ok();
  }
  const std::string reason = "job " + j.id + " ended " + state + " (attempt " + std::to_string(j.attempt) + " of " +
                             std::to_string(o_.max_job_attempts) + "); log: " + j.log;
  if (run) FRONTIER_RETURN_IF_ERROR(sw.store.SetRunStatus(run->id, store::SystemStatus::Broken(reason)));
  sw.Broken(name, reason);
  return Status::Ok();
}

Status SlurmExecutor::Tally(SlurmSweep& sw) {
  const Plan& plan = sw.plan;
  SweepOutcome& out = sw.out;
  for (const Job& j : sw.jobs) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<store::RunInfo> run, CurrentRun(plan, j, sw.options.resume, sw.store));
    int64_t stored = 0;
    if (run) {
      out.run_ids.push_back(run->id);
      FRONTIER_ASSIGN_OR_RETURN(std::set<std::string> have, sw.store.PointKeys(run->id));
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
  return Status::Ok();
}

Result<SweepOutcome> SlurmExecutor::Run(const Plan& plan, store::Store& store, const SweepOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(const double poll_s, Prepare(plan, options));
  const std::vector<PointSpec> matrix = ExpandMatrix(plan);
  SlurmSweep sw(plan, store, options, static_cast<int64_t>(matrix.size()));
  sw.poll_s = poll_s;
  FRONTIER_RETURN_IF_ERROR(MakeJobs(sw, matrix));
  SubmitAll(sw);
  while (sw.Active()) {
    // Sleeps in short steps so that Ctrl-C is answered promptly.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(poll_s);
    while (std::chrono::steady_clock::now() < until && !(sw.StopAsked() && !sw.cancelling))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (sw.StopAsked() && !sw.cancelling) {
      sw.cancelling = true;
      sw.out.interrupted = true;
      CancelAll(sw);
      break;
    }
    FRONTIER_RETURN_IF_ERROR(PollJobs(sw));
  }
  FRONTIER_RETURN_IF_ERROR(Tally(sw));
  return std::move(sw.out);
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

bool SlurmStateKnown(const std::string& state) {
  static const char* kWaiting[] = {"PENDING",  "RUNNING",   "CONFIGURING", "COMPLETING", "SUSPENDED",
                                   "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING",
                                   "STAGE_OUT", "STOPPED",  "RESV_DEL_HOLD", "POWER_UP_NODE", "UPDATE_DB"};
  const std::string s = FirstWord(state);
  return SlurmStateFinal(s) ||
         std::any_of(std::begin(kWaiting), std::end(kWaiting), [&](const char* w) { return s == w; });
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
