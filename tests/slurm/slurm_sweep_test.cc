// `frontier sweep --executor slurm` on a real one-node Slurm cluster
// (slurm_cluster.h): batch jobs through sbatch and srun into one SQLite
// database, then a job cancelled mid-way and the sweep resumed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <sstream>
#include <set>

#include <gtest/gtest.h>

#include "store/store.h"
#include "tests/slurm/slurm_cluster.h"
#include "tests/sweep/sweep_test_util.h"

namespace frontier {
namespace {

using testing_cli::Binary;
using testing_cli::Frontier;
using testing_cli::FreePort;
using testing_cli::Tmp;
namespace fs = std::filesystem;

class SlurmSweep : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new Tmp("slurm_cluster");
    cluster_ = new testing_slurm::SlurmCluster;
    skip_reason_ = new std::string(cluster_->Start(tmp_->dir / "cluster", FreePort(), FreePort()));
  }
  static void TearDownTestSuite() {
    delete cluster_;
    delete tmp_;
    delete skip_reason_;
  }
  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << "no Slurm cluster on this machine: " << *skip_reason_;
  }
  static Tmp* tmp_;
  static testing_slurm::SlurmCluster* cluster_;
  static std::string* skip_reason_;
};
Tmp* SlurmSweep::tmp_ = nullptr;
testing_slurm::SlurmCluster* SlurmSweep::cluster_ = nullptr;
std::string* SlurmSweep::skip_reason_ = nullptr;

// Points by system and key: (stored points, requests stored with them).
std::map<std::string, std::pair<int64_t, int64_t>> Stored(const std::string& db) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  if (!s.ok()) return out;
  auto runs = (*s)->ListRuns();
  for (const auto& r : *runs) {
    auto pts = (*s)->ListPoints(r.id);
    for (const auto& p : *pts) {
      auto& e = out[r.system + " " + p.key];
      e.first += 1;
      e.second += static_cast<int64_t>((*s)->ListRequests(p.id)->size());
    }
  }
  return out;
}

TEST_F(SlurmSweep, SimulatedSystemsRunAsBatchJobsAndMatchALocalSweep) {
  Tmp tmp("slurm_sim");
  const std::string body = R"(systems:
  - {name: h100, hardware: h100-sxm, gpus: 1, sim: {model: llama-3.1-8b}}
  - {name: h200, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: 256x32, dataset: random, input_len: 256, output_len: 32}
load:
  concurrency: [1, 2, 4]
  prompts_per_concurrency: 4
)";
  // The same plan (same name, so the same seeds) run here and on the cluster.
  const std::string plan = tmp.Write("plan.yaml", "name: sim\n" + body +
                                                      "executor: slurm\nslurm: {gres: \"gpu:1\", time: \"5\"}\n");
  const std::string local = tmp.Write("local.yaml", "name: sim\n" + body);
  const std::string db = (tmp.dir / "slurm.db").string(), ldb = (tmp.dir / "local.db").string();
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("6 points run, 0 already stored, 0 failed, of 6"), std::string::npos) << out;
  EXPECT_NE(out.find("submit"), std::string::npos) << out;
  auto [lrc, lout] = Frontier("sweep " + local + " --db " + ldb);
  ASSERT_EQ(lrc, 0) << lout;

  // Each system ran as its own job, whose log is kept and says what its task stored.
  int logs = 0;
  for (const auto& e : fs::directory_iterator(db + ".logs/slurm")) {
    if (e.path().extension() != ".log") continue;
    ++logs;
    EXPECT_NE(testing_cli::Slurp(e.path().string()).find("3 points run, 0 already stored, 0 failed, of 3"),
              std::string::npos)
        << e.path();
  }
  EXPECT_EQ(logs, 2);

  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  auto l = store::OpenStore(ldb, store::OpenMode::kReadOnly);
  auto runs = (*s)->ListRuns();
  auto lruns = (*l)->ListRuns();
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_EQ(lruns->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    // The jobs ran at once: their runs were created in either order.
    const size_t j = (*lruns)[0].system == (*runs)[i].system ? 0 : 1;
    ASSERT_EQ((*lruns)[j].system, (*runs)[i].system);
    EXPECT_TRUE((*runs)[i].status.ok()) << (*runs)[i].status.ToString();
    auto pts = (*s)->ListPoints((*runs)[i].id);
    auto lpts = (*l)->ListPoints((*lruns)[j].id);
    ASSERT_EQ(pts->size(), 3u);
    ASSERT_EQ(lpts->size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      // Virtual time: a point is a function of its system, workload, load and seed, wherever it ran.
      EXPECT_EQ((*pts)[k].key, (*lpts)[k].key);
      EXPECT_EQ((*pts)[k].metrics.completed, static_cast<int64_t>(4 * (*pts)[k].load_value));
      EXPECT_EQ((*pts)[k].metrics.total_output_tokens, (*lpts)[k].metrics.total_output_tokens);
      EXPECT_EQ((*pts)[k].metrics.ttft_ms.median, (*lpts)[k].metrics.ttft_ms.median);
      EXPECT_EQ((*pts)[k].metrics.output_throughput, (*lpts)[k].metrics.output_throughput);
    }
  }
}

// A launched fixed-timing server (about 0.3 s a request) next to a simulated system.
std::string LaunchPlan(const Tmp& tmp, int port) {
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  return tmp.Write("plan.yaml", R"(name: cancel
systems:
  - name: fixed
    hardware: h100
    model: fixed
    base_url: )" + url + R"(
    launch: {command: ")" + Binary() + " serve --profile fixed --port " + std::to_string(port) +
                                                          R"( --ttft-ms 5 --itl-ms 20", health: ")" + url +
                                                          R"(/health", timeout_s: 20, stop_timeout_s: 5}
  - {name: sim, hardware: h100-sxm, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: tiny, input_len: 32, output_len: 16}
load:
  concurrency: [1, 2, 4]
  prompts_per_concurrency: 4
executor: slurm
slurm: {gres: "none", time: "5"}
)");
}

// Starts `frontier sweep PLAN --db DB` in the background, its output in `log`.
pid_t StartSweep(const std::string& plan, const std::string& db, const std::string& log) {
  const std::string bin = Binary();  // before fork: an unset FRONTIER_BIN fails the test, not the child
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(bin.c_str(), bin.c_str(), "sweep", plan.c_str(), "--db", db.c_str(), nullptr);
    ::_exit(127);
  }
  return pid;
}

int64_t FixedPoints(const std::string& db) {
  int64_t n = 0;
  for (const auto& [key, v] : Stored(db)) n += key.rfind("fixed ", 0) == 0 ? v.first : 0;
  return n;
}

// Every point of LaunchPlan stored once, in one run per system, with all of its requests.
void ExpectEveryPointOnce(const std::string& db) {
  const auto stored = Stored(db);
  ASSERT_EQ(stored.size(), 6u);
  for (const auto& [key, v] : stored) {
    EXPECT_EQ(v.first, 1) << key;
    const int c = key.find("concurrency=4") != std::string::npos ? 4 : key.find("concurrency=2") != std::string::npos ? 2 : 1;
    EXPECT_EQ(v.second, 4 * c) << key;
  }
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  auto runs = (*s)->ListRuns();
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& r : *runs) EXPECT_TRUE(r.status.ok()) << r.system << ": " << r.status.ToString();
}

TEST_F(SlurmSweep, ResumeAfterScancelStoresEveryPointOnce) {
  Tmp tmp("slurm_cancel");
  const int port = FreePort();
  const std::string plan = LaunchPlan(tmp, port);
  const std::string db = (tmp.dir / "c.db").string();
  const std::string log = (tmp.dir / "first.out").string();
  const pid_t pid = StartSweep(plan, db, log);
  // Cancel the launched system's job once its first point is stored.
  auto fixed_points = [&] { return FixedPoints(db); };
  ASSERT_TRUE(testing_slurm::SlurmCluster::WaitFor([&] { return fs::exists(db) && fixed_points() >= 1; }, 120))
      << testing_cli::Slurp(log);
  auto [qrc, job] = testing::RunCommand("squeue -h -n frontier-cancel-fixed -o %i");
  ASSERT_EQ(qrc, 0) << job;
  ASSERT_FALSE(job.empty()) << "the job ended before it could be cancelled";
  auto [crc, cout_] = testing::RunCommand("scancel " + job);
  ASSERT_EQ(crc, 0) << cout_;
  int st = 0;
  ::waitpid(pid, &st, 0);
  const std::string first = testing_cli::Slurp(log);
  ASSERT_TRUE(WIFEXITED(st)) << first;
  EXPECT_EQ(WEXITSTATUS(st), 130) << first;  // interrupted, not broken
  EXPECT_NE(first.find("CANCELLED"), std::string::npos) << first;
  EXPECT_NE(first.find("--executor slurm --resume` continues"), std::string::npos) << first;
  const int64_t before = fixed_points();
  EXPECT_GE(before, 1);
  EXPECT_LT(before, 3) << "the cancelled job had finished its points: nothing was left to resume";

  auto [rc, out] = Frontier("sweep " + plan + " --db " + db + " --resume");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(std::to_string(3 - before) + " points run, " + std::to_string(3 + before) +
                     " already stored, 0 failed, of 6"),
            std::string::npos)
      << out;
  ExpectEveryPointOnce(db);
  // The launched server went with its job.
  EXPECT_TRUE(testing_slurm::SlurmCluster::WaitFor([&] { return !testing_cli::Listening(port); }, 10));
}

TEST_F(SlurmSweep, AJobKilledMidWayFailsAndIsRetriedOnceWithResume) {
  Tmp tmp("slurm_retry");
  const int port = FreePort();
  const std::string plan = LaunchPlan(tmp, port);
  const std::string db = (tmp.dir / "r.db").string();
  const std::string log = (tmp.dir / "sweep.out").string();
  const pid_t pid = StartSweep(plan, db, log);
  ASSERT_TRUE(testing_slurm::SlurmCluster::WaitFor([&] { return fs::exists(db) && FixedPoints(db) >= 1; }, 120))
      << testing_cli::Slurp(log);
  auto [qrc, job] = testing::RunCommand("squeue -h -n frontier-cancel-fixed -o %i");
  ASSERT_FALSE(job.empty()) << "the job ended before it could be killed";
  // SIGKILL to the job's frontier process, as a crash would end it (scancel
  // --signal would count as a cancellation): the job ends FAILED.
  auto [prc, pids] = testing::RunCommand("pgrep -f -- '" + db + " --system fixed'");
  ASSERT_EQ(prc, 0) << pids;
  std::istringstream ids(pids);
  for (pid_t p = 0; ids >> p;) ::kill(p, SIGKILL);
  const int64_t before = FixedPoints(db);
  int st = 0;
  ::waitpid(pid, &st, 0);
  const std::string out = testing_cli::Slurp(log);
  ASSERT_TRUE(WIFEXITED(st)) << out;
  EXPECT_EQ(WEXITSTATUS(st), 0) << out;
  EXPECT_NE(out.find("job " + job.substr(0, job.find('\n')) + " ended FAILED; resubmitted as job"), std::string::npos)
      << out;
  EXPECT_LT(before, 3) << "the killed job had finished its points: the retry had nothing to do";
  EXPECT_NE(out.find("6 points run, 0 already stored, 0 failed, of 6"), std::string::npos) << out;
  ExpectEveryPointOnce(db);
  // Both jobs' logs are kept.
  int logs = 0;
  for (const auto& e : fs::directory_iterator(db + ".logs/slurm"))
    logs += e.path().filename().string().rfind("fixed.", 0) == 0 && e.path().extension() == ".log";
  EXPECT_EQ(logs, 2);
}

TEST_F(SlurmSweep, ASystemItsJobRecordsBrokenIsNotRetried) {
  Tmp tmp("slurm_broken");
  const int port = FreePort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string plan = tmp.Write("plan.yaml", R"(name: broken
systems:
  - name: dies
    hardware: h100
    model: fixed
    base_url: )" + url + R"(
    launch: {command: "exit 3", health: ")" + url + R"(/health", timeout_s: 20}
  - {name: sim, hardware: h100-sxm, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: tiny, input_len: 32, output_len: 16}
load: {concurrency: [1, 2]}
executor: slurm
slurm: {gres: "none", time: "5"}
)");
  const std::string db = (tmp.dir / "b.db").string();
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("2 points run, 0 already stored, 2 failed, of 4"), std::string::npos) << out;
  EXPECT_NE(out.find("broken: dies: "), std::string::npos) << out;
  EXPECT_EQ(out.find("resubmitted"), std::string::npos) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  auto runs = (*s)->ListRuns();
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& r : *runs) {
    if (r.system == "dies") {
      EXPECT_FALSE(r.status.ok()) << r.status.ToString();
    } else {
      EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    }
  }
}

}  // namespace
}  // namespace frontier
