// cli_test_util.h: running a command (the frontier binary, usually) from a test
// and collecting its exit status and output, for the tests under tests/.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>

namespace frontier::testing {

// Runs `command` with /bin/sh; returns (exit status, 128 + the signal for a
// process killed by one as the shell reports it, or -1; stdout and stderr
// together).
inline std::pair<int, std::string> RunCommand(const std::string& command) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  if (WIFSIGNALED(st)) return {128 + WTERMSIG(st), out};
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace frontier::testing
