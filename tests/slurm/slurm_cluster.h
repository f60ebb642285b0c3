// slurm_cluster.h: a real one-node Slurm cluster for tests, in a scratch folder.
//
// Writes a slurm.conf (one node: this host's short name, its CPUs and half its
// memory, a partition `test`, cons_tres selection, process tracking by the
// process tree, no task plugin, no accounting; state, spool and logs in the
// folder; its own free ports) and a gres.conf with two fake GPUs (empty files
// standing in for device nodes), then starts munged (its own key and socket),
// slurmctld and slurmd in the foreground as children of the test, and waits
// until the node is idle. SLURM_CONF is set in the test's environment, so
// sbatch, squeue, srun and the frontier processes they start find the cluster.
// The destructor stops the daemons (SIGTERM, then SIGKILL) and unsets it.
//
// Start returns "" when the cluster is up, else why it cannot run here (the
// tools are not installed, not root, a daemon exited: its log's tail), for
// GTEST_SKIP: a test never passes without the cluster.
//
// Thread safety: one per test binary.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_test_util.h"

namespace frontier::testing_slurm {

namespace fs = std::filesystem;

class SlurmCluster {
 public:
  SlurmCluster() = default;
  ~SlurmCluster() { Stop(); }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  std::string Start(const fs::path& dir, int ctld_port, int slurmd_port) {
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "srun", "sinfo"}) {
      if (testing::RunCommand(std::string("command -v ") + tool + " >/dev/null").first != 0)
        return std::string(tool) + " is not installed (scripts/bootstrap installs slurm-wlm and munge)";
    }
    if (::geteuid() != 0) return "slurmd must run as root to start jobs as their users; run the tests as root";
    dir_ = dir;
    fs::create_directories(dir / "state");
    fs::create_directories(dir / "spool");
    fs::create_directories(dir / "munge");
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    std::string node = host;
    node = node.substr(0, node.find('.'));
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    const long mem_mb = ::sysconf(_SC_PHYS_PAGES) / 1024 * ::sysconf(_SC_PAGE_SIZE) / 1024 / 2;
    const std::string d = dir.string();
    {
      std::ofstream key(dir / "munge/munge.key", std::ios::binary);
      std::ifstream rnd("/dev/urandom", std::ios::binary);
      std::vector<char> bytes(1024);
      rnd.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      key.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    fs::permissions(dir / "munge/munge.key", fs::perms::owner_read | fs::perms::owner_write);
    std::ofstream(dir / "gpu0").flush();
    std::ofstream(dir / "gpu1").flush();
    std::ofstream(dir / "slurm.conf")
        << "ClusterName=frontiertest\nSlurmctldHost=" << node << "\nSlurmUser=root\nSlurmdUser=root\n"
        << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << slurmd_port << "\n"
        << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << d << "/munge/sock\n"
        << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
        << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
        << "SlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd.log\n"
        << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
        << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nSchedulerType=sched/builtin\n"
        << "JobCompType=jobcomp/none\nJobAcctGatherType=jobacct_gather/none\n"
        << "AccountingStorageType=accounting_storage/none\nMpiDefault=none\nReturnToService=2\n"
        << "GresTypes=gpu\nInactiveLimit=0\nKillWait=2\nMinJobAge=600\nSlurmctldTimeout=30\nSlurmdTimeout=30\n"
        << "NodeName=" << node << " CPUs=" << cpus << " RealMemory=" << mem_mb << " Gres=gpu:2 State=UNKNOWN\n"
        << "PartitionName=test Nodes=" << node << " Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4\n";
    std::ofstream(dir / "gres.conf") << "NodeName=" << node << " Name=gpu File=" << d << "/gpu[0-1]\n";
    ::setenv("SLURM_CONF", (dir / "slurm.conf").c_str(), 1);

    munged_ = Spawn({"munged", "-F", "-f", "--key-file=" + d + "/munge/munge.key", "--socket=" + d + "/munge/sock",
                     "--pid-file=" + d + "/munge/munged.pid", "--log-file=" + d + "/munge/munged.log",
                     "--seed-file=" + d + "/munge/seed"},
                    dir / "munged.out");
    if (!WaitFor([&] { return fs::exists(dir / "munge/sock"); }, 10))
      return "munged did not start: " + Tail(dir / "munged.out") + Tail(dir / "munge/munged.log");
    ctld_ = Spawn({"slurmctld", "-D", "-c", "-f", d + "/slurm.conf"}, dir / "slurmctld.out");
    slurmd_ = Spawn({"slurmd", "-D", "-f", d + "/slurm.conf"}, dir / "slurmd.out");
    const bool idle = WaitFor(
        [&] {
          return Exited(ctld_) || Exited(slurmd_) ||
                 testing::RunCommand("sinfo -h -o %t 2>/dev/null").second.find("idle") != std::string::npos;
        },
        30);
    if (!idle || Exited(ctld_) || Exited(slurmd_)) {
      return "the Slurm daemons did not bring the node up: slurmctld: " + Tail(dir / "slurmctld.log") +
             Tail(dir / "slurmctld.out") + " slurmd: " + Tail(dir / "slurmd.log") + Tail(dir / "slurmd.out");
    }
    return "";
  }

  void Stop() {
    for (pid_t* p : {&slurmd_, &ctld_, &munged_}) {
      if (*p <= 0) continue;
      ::kill(*p, SIGTERM);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      int st = 0;
      while (::waitpid(*p, &st, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(*p, SIGKILL);
          ::waitpid(*p, &st, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      *p = 0;
    }
    if (!dir_.empty()) ::unsetenv("SLURM_CONF");
  }

  static std::string Tail(const fs::path& file) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > 600 ? text.substr(text.size() - 600) : text;
  }

  template <typename F>
  static bool WaitFor(F done, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
  }

 private:
  static pid_t Spawn(const std::vector<std::string>& argv, const fs::path& out) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      FILE* f = std::fopen(out.c_str(), "w");
      if (f != nullptr) {
        ::dup2(fileno(f), 1);
        ::dup2(fileno(f), 2);
      }
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }

  static bool Exited(pid_t pid) {
    int st = 0;
    return pid <= 0 || ::waitpid(pid, &st, WNOHANG) == pid;
  }

  fs::path dir_;
  pid_t munged_ = 0, ctld_ = 0, slurmd_ = 0;
};

}  // namespace frontier::testing_slurm
