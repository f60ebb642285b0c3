#include "sweep/process.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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

// True while a process of group `pgid` is alive. Zombies do not count: once
// the shell is gone its dead children belong to init, which may reap them late.
bool LiveMembers(pid_t pgid) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid pgrp ...; comm may hold spaces, so parse after the last ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

}  // namespace

bool GroupHasLiveMembers(pid_t pgid) { return LiveMembers(pgid); }

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
  if (!std::filesystem::is_directory(o.cwd)) {
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
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string cmd = o.command, cwd = o.cwd;
  char sh[] = "/bin/sh", dash_c[] = "-c";
  char* argv[] = {sh, dash_c, cmd.data(), nullptr};

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    return IoError(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
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
  return Status::Ok();
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
  if (pid_ <= 0) return "not running";
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
  return "killed after " + std::to_string(options_.stop_timeout_s) + " s";
}

}  // namespace frontier::sweep
