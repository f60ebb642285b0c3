// sweep_test_util.h: running the frontier binary from tests of sweep, db,
// report, compare and simulate's bounds: a scratch folder, the binary's exit
// status and output (tests/cli_test_util.h), a sweep killed mid-way, a free
// loopback port.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "store/store.h"
#include "tests/cli_test_util.h"
#include "util/free_port.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier::testing_cli {

namespace fs = std::filesystem;

// A scratch folder, removed (made writable first) at the end.
using Tmp = testing_util::ScratchDir;
using testing_util::Slurp;

// Runs a shell command line; returns (exit status, stdout + stderr).
inline std::pair<int, std::string> Run(const std::string& command) { return testing::RunCommand(command); }

// The binary under test: this build's, or $FRONTIER_TEST_BIN (to run these
// tests against another build of frontier).
inline std::string Binary() {
  const char* other = std::getenv("FRONTIER_TEST_BIN");
  return other != nullptr && *other != '\0' ? other : testing_util::TestPath("FRONTIER_BIN");
}

// Runs the binary with a shell command line of arguments.
inline std::pair<int, std::string> Frontier(const std::string& args) { return Run(Binary() + " " + args); }

// As Frontier(), as an unprivileged user when the tests run as root
// (permission bits do not bind root).
inline std::pair<int, std::string> FrontierUnprivileged(const std::string& args) {
  const std::string prefix = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  return Run(prefix + Binary() + " " + args);
}

inline int64_t StoredPoints(const std::string& db) {
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  if (!s.ok()) return -1;
  auto p = (*s)->ListPoints(0);
  return p.ok() ? static_cast<int64_t>(p->size()) : -1;
}

// Runs `frontier sweep PLAN --db DB` in the background and SIGKILLs it as soon
// as `points` are stored (a test then checks the sweep had more to do).
// Returns the exit status as waitpid gives it.
inline int SweepAndKill(const std::string& plan, const std::string& db, int64_t points) {
  const std::string bin = Binary();  // before fork: an unset FRONTIER_BIN fails the test, not the child
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(bin.c_str(), bin.c_str(), "sweep", plan.c_str(), "--db", db.c_str(), nullptr);
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && !(fs::exists(db) && StoredPoints(db) >= points)) {
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) return st;  // ended before it could be killed
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}

using testing_util::FreePort;

// True when something accepts connections on 127.0.0.1:port.
inline bool Listening(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace frontier::testing_cli
