// Launched servers through the binary: frontier measures only the server it
// launched, and no launched server outlives its sweep, even one killed with
// SIGKILL.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "sweep_test_util.h"
#include "store/store.h"

namespace frontier {
namespace {

using namespace testing_cli;

// Starts `frontier serve --profile fixed` on `port` in the background.
pid_t StartServer(int port) {
  const std::string bin = Binary();  // before fork: an unset FRONTIER_BIN fails the test, not the child
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    const std::string p = std::to_string(port);
    ::execl(bin.c_str(), bin.c_str(), "serve", "--profile", "fixed", "--port", p.c_str(), nullptr);
    ::_exit(127);
  }
  return pid;
}

// Waits up to `seconds` for Listening(port) to become `want`.
bool WaitListening(int port, bool want, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (Listening(port) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Listening(port) == want;
}

std::string LaunchPlan(int port, const std::string& command_prefix, const std::string& command_suffix,
                       const std::string& concurrency) {
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  return R"(name: launch
systems:
  - name: launched
    hardware: h100
    model: fixed
    base_url: )" + url + R"(
    launch: {command: ")" + command_prefix + Binary() + " serve --profile fixed --port " + std::to_string(port) +
         " --ttft-ms 5 --itl-ms 20" + command_suffix + R"(", health: ")" + url +
         R"(/health", timeout_s: 30, stop_timeout_s: 5}
workloads:
  - {name: w, input_len: 16, output_len: 20}
load:
  concurrency: )" + concurrency + R"(
  prompts_per_concurrency: 2
)";
}

TEST(LaunchCli, AnotherServerOnTheLaunchedPortIsNeverMeasured) {
  Tmp tmp("taken");
  const int port = FreePort();
  const pid_t other = StartServer(port);
  ASSERT_TRUE(WaitListening(port, true, 30));
  const std::string plan = tmp.Write("plan.yaml", LaunchPlan(port, "", "", "[1]"));
  const std::string db = tmp.Path("f.db");
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db + " -q");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("broken: launched: base_url http://127.0.0.1:" + std::to_string(port) + ": port " +
                     std::to_string(port) + " is already in use by pid " + std::to_string(other)),
            std::string::npos)
      << out;
  EXPECT_EQ(StoredPoints(db), 0);
  ::kill(other, SIGTERM);
  ::waitpid(other, nullptr, 0);
}

TEST(LaunchCli, NoLaunchedServerOutlivesASweepKilledWithSigkill) {
  Tmp tmp("orphan");
  const int port = FreePort();
  const std::string plan = tmp.Write("plan.yaml", LaunchPlan(port, "", "", "[1, 2, 3, 4, 5, 6, 7, 8]"));
  const std::string db = tmp.Path("f.db");
  const int st = SweepAndKill(plan, db, 1);
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "the sweep ended before it could be killed";
  const int64_t before = StoredPoints(db);
  ASSERT_LT(before, 8) << "the sweep finished before the kill; the test proves nothing";
  EXPECT_TRUE(WaitListening(port, false, 30)) << "the launched server outlived its sweep";
}

TEST(LaunchCli, ResumeStopsAServerThatLeftItsGroupAndDoesNotMeasureIt) {
  Tmp tmp("escaped");
  const int port = FreePort();
  // setsid: the server leaves the launched process group, out of the watchdog's reach.
  const std::string plan = tmp.Write("plan.yaml", LaunchPlan(port, "setsid ", " & wait", "[1, 2, 3, 4, 5, 6, 7, 8]"));
  const std::string db = tmp.Path("f.db");
  const int st = SweepAndKill(plan, db, 1);
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "the sweep ended before it could be killed";
  const int64_t before = StoredPoints(db);
  ASSERT_LT(before, 8) << "the sweep finished before the kill; the test proves nothing";
  ASSERT_TRUE(Listening(port)) << "no orphan to sweep up";

  auto [rc, out] = Frontier("sweep " + plan + " --db " + db + " --resume -q");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("frontier sweep: stopped 1 process(es) of system launched"), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(8 - before) + " points run, " + std::to_string(before) + " already stored"),
            std::string::npos)
      << out;
  EXPECT_TRUE(WaitListening(port, false, 30)) << "a server outlived the resumed sweep";
}

}  // namespace
}  // namespace frontier
