#include "sweep/process.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

namespace frontier::sweep {
namespace {

std::string DescribeWait(int st) {
  if (WIFEXITED(st)) return "exited " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return "signal " + std::to_string(WTERMSIG(st));
  return "ended";
}

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

// 16 random hex digits.
std::string NewMarker() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd() ^
                      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      static_cast<uint64_t>(::getpid()));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

// The watchdog, in a forked child of a possibly multithreaded process: only
// async-signal-safe calls from here on. Blocks until every write end of the
// pipe on `fd` is closed (the launcher stopped the server, or died), then
// stops group `group` and exits.
[[noreturn]] void RunWatchdog(int fd, pid_t group, double stop_timeout_s) {
  ::setpgid(0, 0);  // its own group: the terminal's Ctrl-C and the launcher's kill(-group) miss it
  ::dup2(fd, STDIN_FILENO);
  // Hold no other descriptor (a listening socket kept open here would outlive the launcher).
  if (::syscall(SYS_close_range, 1U, ~0U, 0U) != 0) {
    for (int i = 1; i < 65536; ++i) ::close(i);
  }
  char c;
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  ::kill(-group, SIGTERM);
  const long steps = static_cast<long>(stop_timeout_s * 50);  // 20 ms each
  for (long i = 0; i < steps; ++i) {
    if (::kill(-group, 0) != 0 && errno == ESRCH) ::_exit(0);
    const timespec pause{0, 20'000'000};
    ::nanosleep(&pause, nullptr);
  }
  ::kill(-group, SIGKILL);
  ::_exit(0);
}

std::string Holder(const PortListeners& l) {
  if (l.pids.empty()) return "a process this user cannot inspect";
  const pid_t pid = l.pids.front();
  const std::string cmd = CommandOf(pid);
  return "pid " + std::to_string(pid) + (cmd.empty() ? "" : " (" + cmd + ")");
}

}  // namespace

bool HttpGetOk(const std::string& url, double timeout_s) {
  CURL* c = curl_easy_init();
  if (!c) return false;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Discard);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  long code = 0;
  const bool ok = curl_easy_perform(c) == CURLE_OK &&
                  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code >= 200 &&
                  code < 300;
  curl_easy_cleanup(c);
  return ok;
}

ServerProcess::~ServerProcess() { Stop(); }

Status ServerProcess::Start(const ProcessOptions& o) {
  if (pid_ > 0) return FailedPrecondition("server already started");
  options_ = o;
  std::error_code ec;
  const auto log_dir = std::filesystem::path(o.log_path).parent_path();
  if (!log_dir.empty()) std::filesystem::create_directories(log_dir, ec);
  const int log = ::open(o.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return IoError("cannot open server log " + o.log_path + ": " + std::strerror(errno));
  if (!std::filesystem::is_directory(o.cwd, ec)) {
    ::close(log);
    return IoError("launch.cwd " + o.cwd + " is not a directory");
  }
  // Build everything the child needs before fork (no allocation after it).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (!o.env.count(key)) env_strings.push_back(kv);
  }
  for (auto& [k, v] : o.env) env_strings.push_back(k + "=" + v);
  marker_ = NewMarker();
  env_strings.push_back(std::string(kLaunchMarkerEnv) + "=" + marker_);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string cmd = o.command, cwd = o.cwd;
  char sh[] = "/bin/sh", dash_c[] = "-c";
  char* argv[] = {sh, dash_c, cmd.data(), nullptr};

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(log);
    return IoError(std::string("pipe failed: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return IoError(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // Dies with the launcher, even a launcher killed with SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(sh, argv, envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent: no race with an early kill
  ::close(log);
  pid_ = pid;
  const pid_t watchdog = ::fork();
  if (watchdog == 0) RunWatchdog(pipe_fds[0], pid, o.stop_timeout_s);
  ::close(pipe_fds[0]);
  if (watchdog < 0) {
    ::close(pipe_fds[1]);
    const std::string err = std::strerror(errno);
    Stop();
    return IoError("fork failed: " + err);
  }
  watchdog_ = watchdog;
  watchdog_fd_ = pipe_fds[1];
  return Status::Ok();
}

void ServerProcess::ReleaseWatchdog() {
  if (watchdog_fd_ >= 0) ::close(watchdog_fd_);
  watchdog_fd_ = -1;
  if (watchdog_ > 0) ::waitpid(watchdog_, nullptr, 0);
  watchdog_ = -1;
}

Status ServerProcess::CheckServes(int port) {
  int st = 0;
  if (pid_ <= 0 || Reap(&st)) {
    const std::string how = pid_ > 0 ? DescribeWait(st) : "not started";
    return FailedPrecondition("the launched server `" + options_.command + "` " + how +
                              "; see its log " + options_.log_path);
  }
  const PortListeners l = FindListeners(port);
  std::vector<pid_t> marked;
  for (const pid_t p : l.pids) {
    if (ProcessGroupOf(p) == pid_) return Status::Ok();
    if (marked.empty()) marked = ProcessesWithEnv(kLaunchMarkerEnv, marker_);
    if (std::find(marked.begin(), marked.end(), p) != marked.end()) return Status::Ok();
  }
  if (!l.listening) {
    return FailedPrecondition("nothing listens on port " + std::to_string(port) +
                              " of this machine, yet the health check passed: the server answering is not "
                              "the launched one (in a container? then set launch.check_owner: false)");
  }
  return FailedPrecondition("port " + std::to_string(port) + " is served by " + Holder(l) +
                            ", not by the server this sweep launched (process group " + std::to_string(pid_) +
                            ", log " + options_.log_path +
                            "); stop that server or give the launched one another port (in a container, set "
                            "launch.check_owner: false)");
}

Status CheckPortFree(int port, const std::string& what) {
  const PortListeners l = FindListeners(port);
  if (!l.listening) return Status::Ok();
  return FailedPrecondition(what + ": port " + std::to_string(port) + " is already in use by " + Holder(l) +
                            " before launch; frontier measures only a server it starts: stop that one or "
                            "choose another port");
}

int StopMarkedProcesses(const std::string& marker, double stop_timeout_s) {
  const std::vector<pid_t> marked = ProcessesWithEnv(kLaunchMarkerEnv, marker);
  std::vector<pid_t> groups;
  for (const pid_t p : marked) {
    const pid_t g = ProcessGroupOf(p);
    if (g > 1 && g != ::getpgrp() && std::find(groups.begin(), groups.end(), g) == groups.end())
      groups.push_back(g);
  }
  for (const pid_t g : groups) ::kill(-g, SIGTERM);
  for (const pid_t p : marked) ::kill(p, SIGTERM);  // members that left the group
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(stop_timeout_s);
  while (std::chrono::steady_clock::now() < deadline && !ProcessesWithEnv(kLaunchMarkerEnv, marker).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (const pid_t p : ProcessesWithEnv(kLaunchMarkerEnv, marker)) {
    const pid_t g = ProcessGroupOf(p);
    if (g > 1 && g != ::getpgrp()) ::kill(-g, SIGKILL);
    ::kill(p, SIGKILL);
  }
  return static_cast<int>(marked.size());
}

bool ServerProcess::Reap(int* wait_status) {
  if (pid_ <= 0) return true;
  const pid_t r = ::waitpid(pid_, wait_status, WNOHANG);
  return r == pid_ || (r < 0 && errno == ECHILD);
}

Status ServerProcess::WaitHealthy(const std::string& url, double timeout_s, const Clock& clock,
                                  Nanos poll) {
  const Nanos deadline = clock.Now() + SecondsToNanos(timeout_s);
  while (true) {
    int st = 0;
    if (pid_ <= 0 || Reap(&st)) {
      const std::string how = pid_ > 0 ? DescribeWait(st) : "not started";
      pid_ = -1;
      return Unavailable("server `" + options_.command + "` " + how +
                         " before it was healthy; see its log " + options_.log_path);
    }
    if (HttpGetOk(url, 2.0)) return Status::Ok();
    if (clock.Now() >= deadline) {
      return Status(StatusCode::kDeadlineExceeded,
                    "server not healthy at " + url + " after " + std::to_string(timeout_s) +
                        " s (raise launch.timeout_s, or see its log " + options_.log_path + ")");
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(poll));
  }
}

std::string ServerProcess::Stop() {
  std::string how = StopGroup();
  // Descendants that left the group (setsid) still carry the marker.
  if (!marker_.empty()) StopMarkedProcesses(marker_, options_.stop_timeout_s);
  return how;
}

std::string ServerProcess::StopGroup() {
  if (pid_ <= 0) {
    ReleaseWatchdog();
    return "not running";
  }
  const pid_t group = pid_;
  int st = 0;
  bool reaped = Reap(&st);
  std::string how = reaped ? DescribeWait(st) : "";
  ::kill(-group, SIGTERM);
  // Wait for the shell and every other member of the group (a server's workers).
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(options_.stop_timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!reaped && Reap(&st)) {
      reaped = true;
      how = DescribeWait(st);
    }
    if (reaped && !GroupHasLiveMembers(group)) {
      pid_ = -1;
      ReleaseWatchdog();
      return how;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-group, SIGKILL);
  if (!reaped) ::waitpid(group, &st, 0);
  // SIGKILL cannot be ignored; wait briefly for the group to be gone.
  for (int i = 0; i < 100 && GroupHasLiveMembers(group); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  pid_ = -1;
  ReleaseWatchdog();
  return "killed after " + std::to_string(options_.stop_timeout_s) + " s";
}

}  // namespace frontier::sweep
