// process.h: a server frontier starts for a sweep and stops afterwards.
//
// Start runs `/bin/sh -c COMMAND` in its own process group (so the server and
// every child it forks are stopped together), with its stdout and stderr
// appended to a log file, in `cwd`, with `env` added to frontier's
// environment. WaitHealthy polls the health URL until it answers 2xx; it
// fails early when the server exits, and at the timeout. Stop sends SIGTERM
// to the group, waits up to the stop timeout, then sends SIGKILL.
//
// No server outlives the process that launched it, even one killed with
// SIGKILL: the shell gets SIGKILL from the kernel when its parent dies
// (PR_SET_PDEATHSIG), and a watchdog process, forked beside it and blocked on
// a pipe only the launcher holds, wakes when the launcher is gone and stops
// the whole group (SIGTERM, then SIGKILL after the stop timeout). A child that
// leaves the group (setsid) escapes both, but still carries
// FRONTIER_LAUNCH_ID=marker in its environment, which StopMarkedProcesses
// finds (the sweep records every launch in the store and sweeps up after a
// launcher that died).
//
// The server measured is the one launched: CheckServes finds the process
// listening on the server's port and fails unless it belongs to the launched
// group or carries its marker (another server already on the port would
// otherwise answer the health check and be measured).
//
// Thread safety: one thread per ServerProcess.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "sweep/proc_scan.h"

namespace frontier::sweep {

struct ProcessOptions {
  std::string command;
  std::map<std::string, std::string> env;
  std::string cwd = ".";
  std::string log_path;             // appended to; created with its folder
  double stop_timeout_s = 30;
};

// The environment variable that marks a launched server and its descendants.
inline constexpr const char* kLaunchMarkerEnv = "FRONTIER_LAUNCH_ID";

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();  // Stop()
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Forks and execs (and forks the watchdog). IoError naming the log or cwd
  // when they cannot be used.
  Status Start(const ProcessOptions& options);

  // Polls `url` every `poll` until 2xx. Unavailable naming the exit status and
  // the log if the process ends first; DeadlineExceeded after `timeout_s`.
  Status WaitHealthy(const std::string& url, double timeout_s, const Clock& clock,
                     Nanos poll = 250 * kNanosPerMilli);

  // OK when the process listening on TCP `port` of this machine belongs to
  // the launched group or carries its marker. FailedPrecondition naming the
  // port, the process that holds it and the fix otherwise, or when the
  // launched server has exited.
  Status CheckServes(int port);

  // SIGTERM to the process group, SIGKILL after the stop timeout; then the
  // same to descendants that left the group but carry the marker.
  // Idempotent. Returns how the group ended: "exited 0", "signal 15",
  // "killed after 30 s".
  std::string Stop();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }       // also the process group id
  const std::string& marker() const { return marker_; }  // FRONTIER_LAUNCH_ID's value
  const std::string& log_path() const { return options_.log_path; }

 private:
  // Reaps the child if it ended; true when it is gone.
  bool Reap(int* wait_status);
  // Stop() for the process group.
  std::string StopGroup();
  // Lets the watchdog go (the group is gone) and reaps it.
  void ReleaseWatchdog();

  ProcessOptions options_;
  pid_t pid_ = -1;
  std::string marker_;
  pid_t watchdog_ = -1;
  int watchdog_fd_ = -1;   // write end of the watchdog's pipe; closing it wakes the watchdog
};

// OK when nothing listens on TCP `port` of this machine; FailedPrecondition
// naming the process that does (for a plan's `launch`, before starting).
Status CheckPortFree(int port, const std::string& what);

// Stops every process whose environment carries FRONTIER_LAUNCH_ID=`marker`,
// with its process group (SIGTERM, SIGKILL after `stop_timeout_s`). Returns
// how many processes carried it.
int StopMarkedProcesses(const std::string& marker, double stop_timeout_s);

// One HTTP GET; true when it answered 2xx within `timeout_s`.
bool HttpGetOk(const std::string& url, double timeout_s);

}  // namespace frontier::sweep
