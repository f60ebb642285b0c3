#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sweep/process.h"

namespace frontier::sweep {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("frontier_process_" + name + "_" + std::to_string(::getpid())))
      .string();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool GroupAlive(pid_t pgid) { return GroupHasLiveMembers(pgid); }

TEST(ServerProcess, LogsEnvAndCwdAndStopsTheWholeGroupWithSigterm) {
  const std::string log = TempPath("log") + "/server.log";
  std::filesystem::remove_all(std::filesystem::path(log).parent_path());
  ServerProcess p;
  ProcessOptions o;
  // A child that outlives the shell's own command, to check the group is stopped.
  o.command = "echo started $GREETING in $(pwd); sleep 60 & sleep 60";
  o.env = {{"GREETING", "hello"}};
  o.cwd = "/tmp";
  o.log_path = log;
  o.stop_timeout_s = 5;
  ASSERT_TRUE(p.Start(o).ok());
  const pid_t group = p.pid();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(GroupAlive(group));
  const std::string how = p.Stop();
  EXPECT_EQ(how, "signal 15");  // SIGTERM was enough
  EXPECT_FALSE(GroupAlive(group));
  EXPECT_EQ(Slurp(log), "started hello in /tmp\n");
}

TEST(ServerProcess, SigkillAfterTheStopTimeoutWhenSigtermIsIgnored) {
  ServerProcess p;
  ProcessOptions o;
  o.command = "trap '' TERM; while true; do sleep 0.05; done";
  o.log_path = TempPath("ignore.log");
  o.stop_timeout_s = 0.5;
  ASSERT_TRUE(p.Start(o).ok());
  const pid_t group = p.pid();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(p.Stop().rfind("killed after", 0), 0u);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(450));
  EXPECT_FALSE(GroupAlive(group));
}

TEST(ServerProcess, HealthFailsFastWhenTheServerExitsAndTimesOutWhenItNeverAnswers) {
  ServerProcess quits;
  ProcessOptions o;
  o.command = "echo no such model >&2; exit 3";
  o.log_path = TempPath("exit.log");
  ASSERT_TRUE(quits.Start(o).ok());
  auto st = quits.WaitHealthy("http://127.0.0.1:9/health", 30, SteadyClock::Get(), kNanosPerMilli * 20);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("exited 3 before it was healthy"), std::string::npos);
  EXPECT_NE(st.message().find(o.log_path), std::string::npos);

  ServerProcess silent;
  o.command = "sleep 60";
  ASSERT_TRUE(silent.Start(o).ok());
  const auto t0 = std::chrono::steady_clock::now();
  st = silent.WaitHealthy("http://127.0.0.1:9/health", 0.3, SteadyClock::Get(), kNanosPerMilli * 20);
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded);
  // It gave up at its deadline, not when the process ended (60 s later).
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
}

TEST(ServerProcess, HealthyWhenTheUrlAnswers200) {
  // A one-shot HTTP responder on an ephemeral port stands in for the server's /health.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  std::thread responder([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    char buf[1024];
    (void)::read(c, buf, sizeof buf);
    const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    (void)::write(c, resp, sizeof resp - 1);
    ::close(c);
  });
  ServerProcess p;
  ProcessOptions o;
  o.command = "sleep 60";
  o.log_path = TempPath("ok.log");
  o.stop_timeout_s = 2;
  ASSERT_TRUE(p.Start(o).ok());
  auto st = p.WaitHealthy("http://127.0.0.1:" + std::to_string(port) + "/health", 10,
                          SteadyClock::Get(), kNanosPerMilli * 20);
  EXPECT_TRUE(st.ok()) << st.ToString();
  responder.join();
  ::close(fd);
  p.Stop();
}

}  // namespace
}  // namespace frontier::sweep
