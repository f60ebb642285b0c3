// `frontier serve` as a process: prints its address, serves, and exits 0 on
// SIGINT and SIGTERM; usage errors exit 2 naming the flag.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <regex>

#include "serve_test_util.h"
#include "util/test_paths.h"

namespace frontier::serve::testing {
namespace {

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;  // its stdout and stderr
};

Child Spawn(const std::vector<std::string>& args) {
  std::string bin = testing_util::TestPath("FRONTIER_BIN");
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  c.out = fdopen(fds[0], "r");
  return c;
}

std::string ReadLine(FILE* f) {
  char buf[1024];
  return std::fgets(buf, sizeof(buf), f) ? std::string(buf) : std::string();
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void ServeAndStop(int sig, const std::vector<std::string>& args, const std::string& model) {
  Child c = Spawn(args);
  const std::string line = ReadLine(c.out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+) \(model )"))) << line;
  const int port = std::stoi(m[1]);
  const HttpReply r = Post(port, "/v1/chat/completions",
                           R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true})");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(EndsWithDone(r));
  EXPECT_EQ(json::parse(Exchange(port, FormatGet("/v1/models")).body)["data"][0]["id"], model);
  kill(c.pid, sig);
  EXPECT_EQ(WaitExit(c.pid), 0);
  EXPECT_NE(ReadLine(c.out).find("stopped"), std::string::npos);
  fclose(c.out);
}

TEST(ServeCli, FixedProfileStopsCleanlyOnSigint) {
  ServeAndStop(SIGINT, {"serve", "--profile", "fixed", "--port", "0", "--ttft-ms", "1", "--itl-ms", "1"}, "fixed");
}

TEST(ServeCli, SimProfileStopsCleanlyOnSigterm) {
  ServeAndStop(SIGTERM,
               {"serve", "--model", "llama-3.1-70b", "--hardware", "h200", "--gpus", "8", "--tp", "8", "--precision",
                "fp8", "--port", "0", "--time-scale", "10"},
               "llama-3.1-70b");
}

TEST(ServeCli, GraceLetsAStreamFinishAfterSigterm) {
  Child c = Spawn({"serve", "--profile", "fixed", "--port", "0", "--ttft-ms", "1", "--itl-ms", "10",
                   "--shutdown-grace-s", "10"});
  const std::string line = ReadLine(c.out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+))"))) << line;
  const int port = std::stoi(m[1]);
  auto conn = ProbeConnection::Connect("127.0.0.1", port);
  ASSERT_TRUE(conn.ok());
  ASSERT_TRUE(conn->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":30,"stream":true})")).ok());
  // Signal only once the server runs the request.
  const Nanos until = SteadyClock::MonotonicNow() + 5 * kNanosPerSecond;
  while (Exchange(port, FormatGet("/metrics")).body.find("vllm:num_requests_running{model_name=\"fixed\"} 1\n") ==
             std::string::npos &&
         SteadyClock::MonotonicNow() < until) {
  }
  kill(c.pid, SIGTERM);
  auto r = conn->ReadReply(10 * kNanosPerSecond);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(EndsWithDone(*r));
  EXPECT_EQ(WaitExit(c.pid), 0);
  fclose(c.out);
}

TEST(ServeCli, UsageErrorsNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
    int code;
  };
  const Case cases[] = {
      {{"serve", "--profile", "fixed", "--tp", "8"}, "--tp", 2},
      {{"serve", "--profile", "fixed", "--ttft-ms", "-1"}, "--ttft-ms", 2},
      {{"serve", "--profile", "fixed", "--fault-error-rate", "1.5"}, "--fault-error-rate", 2},
      {{"serve", "--profile", "fixed", "--max-connections", "0"}, "--max-connections", 2},
      {{"serve", "--profile", "fixed", "--idle-timeout-s", "0"}, "--idle-timeout-s", 2},
      {{"serve", "--profile", "fixed", "--header-timeout-s", "-1"}, "--header-timeout-s", 2},
      {{"serve", "--profile", "warp"}, "--profile", 2},
      {{"serve", "--model", "no-such-model"}, "no-such-model", 2},
      {{"serve", "--profile", "fixed", "--host", "example.com"}, "--host", 2},
  };
  for (const Case& c : cases) {
    Child ch = Spawn(c.args);
    const std::string line = ReadLine(ch.out);
    EXPECT_EQ(WaitExit(ch.pid), c.code) << line;
    EXPECT_NE(line.find(c.says), std::string::npos) << line;
    fclose(ch.out);
  }
}

}  // namespace
}  // namespace frontier::serve::testing
