// process.h: a server frontier starts for a sweep and stops afterwards.
//
// Start runs `/bin/sh -c COMMAND` in its own process group (so the server and
// every child it forks are stopped together), with its stdout and stderr
// appended to a log file, in `cwd`, with `env` added to frontier's
// environment. WaitHealthy polls the health URL until it answers 2xx; it
// fails early when the server exits, and at the timeout. Stop sends SIGTERM
// to the group, waits up to the stop timeout, then sends SIGKILL.
//
// Thread safety: one thread per ServerProcess.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

#include "core/clock.h"
#include "core/status.h"

namespace frontier::sweep {

struct ProcessOptions {
  std::string command;
  std::map<std::string, std::string> env;
  std::string cwd = ".";
  std::string log_path;             // appended to; created with its folder
  double stop_timeout_s = 30;
};

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();  // Stop()
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Forks and execs. IoError naming the log or cwd when they cannot be used.
  Status Start(const ProcessOptions& options);

  // Polls `url` every `poll` until 2xx. Unavailable naming the exit status and
  // the log if the process ends first; DeadlineExceeded after `timeout_s`.
  Status WaitHealthy(const std::string& url, double timeout_s, const Clock& clock,
                     Nanos poll = 250 * kNanosPerMilli);

  // SIGTERM to the process group, SIGKILL after the stop timeout. Idempotent.
  // Returns how it ended: "exited 0", "signal 15", "killed after 30 s".
  std::string Stop();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }       // also the process group id
  const std::string& log_path() const { return options_.log_path; }

 private:
  // Reaps the child if it ended; true when it is gone.
  bool Reap(int* wait_status);

  ProcessOptions options_;
  pid_t pid_ = -1;
};

// True while a live (non-zombie) process belongs to process group `pgid` (reads /proc).
bool GroupHasLiveMembers(pid_t pgid);

// One HTTP GET; true when it answered 2xx within `timeout_s`.
bool HttpGetOk(const std::string& url, double timeout_s);

}  // namespace frontier::sweep
