#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "sweep/process.h"
#include "util/scratch.h"

namespace frontier::sweep {
namespace {

using testing_util::Slurp;

bool GroupAlive(pid_t pgid) { return GroupHasLiveMembers(pgid); }

// A listening socket on an ephemeral loopback port: another server.
int Listen(int* port) {
  // Close-on-exec, as servers' sockets are: the launched process must not inherit it.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

TEST(ServerProcess, LogsEnvAndCwdAndStopsTheWholeGroupWithSigterm) {
  testing_util::ScratchDir tmp("process");
  const std::string log = tmp.Path("log") + "/server.log";  // in a folder that does not exist yet
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
  testing_util::ScratchDir tmp("process");
  ServerProcess p;
  ProcessOptions o;
  o.command = "trap '' TERM; while true; do sleep 0.05; done";
  o.log_path = tmp.Path("ignore.log");
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
  testing_util::ScratchDir tmp("process");
  ServerProcess quits;
  ProcessOptions o;
  o.command = "echo no such model >&2; exit 3";
  o.log_path = tmp.Path("exit.log");
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
  int port = 0;
  const int fd = Listen(&port);
  std::thread responder([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    char buf[1024];
    (void)::read(c, buf, sizeof buf);
    const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    (void)::write(c, resp, sizeof resp - 1);
    ::close(c);
  });
  testing_util::ScratchDir tmp("process");
  ServerProcess p;
  ProcessOptions o;
  o.command = "sleep 60";
  o.log_path = tmp.Path("ok.log");
  o.stop_timeout_s = 2;
  ASSERT_TRUE(p.Start(o).ok());
  auto st = p.WaitHealthy("http://127.0.0.1:" + std::to_string(port) + "/health", 10,
                          SteadyClock::Get(), kNanosPerMilli * 20);
  EXPECT_TRUE(st.ok()) << st.ToString();
  responder.join();
  ::close(fd);
  p.Stop();
}

// Waits up to `seconds` for group `pgid` to have no live member.
bool GroupGoneWithin(pid_t pgid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!GroupAlive(pgid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Forks a launcher that starts `command` and reports its group and marker
// through a pipe, then waits to be killed.
struct Launcher {
  pid_t pid = -1;
  pid_t group = -1;
  std::string marker;
};
Launcher Launch(const std::string& command, const std::string& log_path) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  Launcher l;
  l.pid = ::fork();
  if (l.pid == 0) {
    ::close(fds[0]);
    ServerProcess p;
    ProcessOptions o;
    o.command = command;
    o.log_path = log_path;
    o.stop_timeout_s = 2;
    if (!p.Start(o).ok()) ::_exit(1);
    const std::string msg = std::to_string(p.pid()) + " " + p.marker() + "\n";
    (void)::write(fds[1], msg.data(), msg.size());
    while (true) ::pause();
  }
  ::close(fds[1]);
  char buf[128] = {0};
  size_t got = 0;
  while (got < sizeof buf - 1) {
    const ssize_t n = ::read(fds[0], buf + got, sizeof buf - 1 - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
    if (std::string(buf, got).find('\n') != std::string::npos) break;
  }
  ::close(fds[0]);
  std::istringstream in(buf);
  in >> l.group >> l.marker;
  return l;
}

TEST(ServerProcess, NoServerOutlivesALauncherKilledWithSigkill) {
  // The shell's own command and a background child both stay in the group.
  testing_util::ScratchDir tmp("process");
  Launcher l = Launch("sleep 60 & sleep 60", tmp.Path("launcher.log"));
  ASSERT_GT(l.group, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(GroupAlive(l.group));
  ASSERT_EQ(::kill(l.pid, SIGKILL), 0);
  ::waitpid(l.pid, nullptr, 0);
  EXPECT_TRUE(GroupGoneWithin(l.group, 20)) << "the launched group outlived its launcher";
}

TEST(ServerProcess, AChildThatLeftTheGroupIsFoundByItsMarker) {
  testing_util::ScratchDir tmp("process");
  Launcher l = Launch("setsid sleep 60 & sleep 60", tmp.Path("launcher.log"));
  ASSERT_EQ(l.marker.size(), 16u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(l.pid, SIGKILL);
  ::waitpid(l.pid, nullptr, 0);
  EXPECT_TRUE(GroupGoneWithin(l.group, 20));
  // The setsid child escaped the group; its environment still names the launch.
  const auto escaped = ProcessesWithEnv(kLaunchMarkerEnv, l.marker);
  ASSERT_EQ(escaped.size(), 1u);
  EXPECT_EQ(StopMarkedProcesses(l.marker, 5), 1);
  EXPECT_TRUE(ProcessesWithEnv(kLaunchMarkerEnv, l.marker).empty());
}

TEST(ServerProcess, AnotherServerOnThePortIsNamedNotMeasured) {
  int port = 0;
  const int other = Listen(&port);
  const std::string me = std::to_string(::getpid());
  Status free = CheckPortFree(port, "base_url http://127.0.0.1:" + std::to_string(port));
  ASSERT_FALSE(free.ok());
  EXPECT_EQ(free.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(free.message().find("port " + std::to_string(port) + " is already in use by pid " + me),
            std::string::npos)
      << free.message();

  testing_util::ScratchDir tmp("process");
  ServerProcess p;
  ProcessOptions o;
  o.command = "sleep 60";  // launched, but not the one listening
  o.log_path = tmp.Path("owner.log");
  o.stop_timeout_s = 2;
  ASSERT_TRUE(p.Start(o).ok());
  // Until the launched shell has exec'd (and the watchdog closed what it
  // inherited), the forked copies hold this process's close-on-exec socket
  // too, and the launched group does serve the port. Ask once only we hold it;
  // a loaded machine can take a while to get there.
  for (int i = 0; i < 2000 && FindListeners(port).pids != std::vector<pid_t>{::getpid()}; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(FindListeners(port).pids, std::vector<pid_t>{::getpid()});
  Status serves = p.CheckServes(port);
  ASSERT_FALSE(serves.ok());
  EXPECT_NE(serves.message().find("port " + std::to_string(port) + " is served by pid " + me),
            std::string::npos)
      << serves.message();
  EXPECT_NE(serves.message().find("not by the server this sweep launched"), std::string::npos);
  ::close(other);
  EXPECT_TRUE(CheckPortFree(port, "x").ok());
  EXPECT_NE(p.CheckServes(port).message().find("nothing listens on port"), std::string::npos);
  p.Stop();
  EXPECT_NE(p.CheckServes(port).message().find("not started"), std::string::npos);
}

TEST(ProcScan, UrlHostPort) {
  EXPECT_EQ(UrlHostPort("http://127.0.0.1:8000/health")->port, 8000);
  EXPECT_EQ(UrlHostPort("http://localhost/x")->port, 80);
  EXPECT_EQ(UrlHostPort("https://example.com")->port, 443);
  EXPECT_EQ(UrlHostPort("http://[::1]:9000/")->host, "::1");
  EXPECT_EQ(UrlHostPort("http://[::1]/")->port, 80);
  EXPECT_FALSE(UrlHostPort("http://127.0.0.1:0/").ok());
  EXPECT_FALSE(UrlHostPort("http://127.0.0.1:http/").ok());
  EXPECT_FALSE(UrlHostPort("http://:80/").ok());
  EXPECT_FALSE(UrlHostPort("ftp://x/").ok());
  EXPECT_TRUE(IsLocalHost("127.0.0.1"));
  EXPECT_FALSE(IsLocalHost("10.0.0.1"));
}

}  // namespace
}  // namespace frontier::sweep
