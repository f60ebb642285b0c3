// The Slurm executor's plan fields and the jobs it would submit (the jobs
// themselves run in tests/slurm/ on a real cluster).
#include "sweep/slurm.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "store/store.h"
#include "util/scratch.h"

namespace frontier::sweep {
namespace {

const char* kPlan = R"(name: nightly
systems:
  - {name: h200-sim, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8}}
  - {name: vllm, hardware: h100, gpus: 4, model: m, base_url: "http://127.0.0.1:8000"}
workloads:
  - {name: w}
load: {concurrency: [1]}
executor: slurm
slurm: {partition: gpu, time: "02:00:00", sbatch_args: ["--account=perf"]}
)";

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(SlurmPlan, FieldsParseAndBecomeSbatchArguments) {
  auto p = ParsePlan(kPlan, "p.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->executor, "slurm");
  EXPECT_EQ(p->slurm.partition, "gpu");
  SlurmOptions o;
  o.frontier_bin = "/opt/frontier";
  o.plan_path = "/plans/it's.yaml";
  o.db = "/data/r.db";
  o.log_dir = "/data/r.db.logs/slurm";
  // A server system gets its GPUs; a simulated one needs none.
  SlurmJobSpec server = MakeSlurmJob(*p, p->systems[1], o, false);
  EXPECT_TRUE(Has(server.sbatch_args, "--gres=gpu:4"));
  EXPECT_TRUE(Has(server.sbatch_args, "--partition=gpu"));
  EXPECT_TRUE(Has(server.sbatch_args, "--time=02:00:00"));
  EXPECT_TRUE(Has(server.sbatch_args, "--account=perf"));
  EXPECT_TRUE(Has(server.sbatch_args, "--output=/data/r.db.logs/slurm/vllm.%j.log"));
  EXPECT_NE(server.script.find("exec srun --ntasks=1 '/opt/frontier' 'sweep' '/plans/it'\\''s.yaml' '--db' "
                               "'/data/r.db' '--system' 'vllm' '--executor' 'local' '-q'\n"),
            std::string::npos)
      << server.script;
  SlurmJobSpec sim = MakeSlurmJob(*p, p->systems[0], o, true);
  EXPECT_FALSE(std::any_of(sim.sbatch_args.begin(), sim.sbatch_args.end(),
                           [](const std::string& a) { return a.rfind("--gres", 0) == 0; }));
  EXPECT_NE(sim.script.find("'-q' '--resume'\n"), std::string::npos) << sim.script;
}

TEST(SlurmPlan, BadFieldsAreNamed) {
  std::string text = kPlan;
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    auto p = ParsePlan(t, "p.yaml");
    return p.ok() ? std::string("accepted") : p.status().message();
  };
  EXPECT_EQ(bad("executor: slurm", "executor: k8s"), "p.yaml:8: executor: must be local or slurm, got 'k8s'");
  EXPECT_NE(bad("time: \"02:00:00\"", "time: two hours").find("slurm.time: must be a Slurm time limit"),
            std::string::npos);
  EXPECT_NE(bad("partition: gpu", "queue: gpu").find("slurm.queue: unknown field"), std::string::npos);
}

TEST(SlurmPlan, FinalStates) {
  EXPECT_TRUE(SlurmStateFinal("COMPLETED"));
  EXPECT_TRUE(SlurmStateFinal("CANCELLED by 0"));
  EXPECT_TRUE(SlurmStateFinal("NODE_FAIL"));
  EXPECT_FALSE(SlurmStateFinal("RUNNING"));
  EXPECT_FALSE(SlurmStateFinal("PENDING"));
  EXPECT_FALSE(SlurmStateFinal("COMPLETING"));
}

TEST(SlurmPlan, ToolTimeoutAndPollAreBounded) {
  std::string t = kPlan;
  t.replace(t.find("sbatch_args"), 0, "tool_timeout_s: 5, poll_s: 0.5, ");
  auto p = ParsePlan(t, "p.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->slurm.tool_timeout_s, 5);
  EXPECT_EQ(p->slurm.poll_s, 0.5);
  EXPECT_EQ(ParsePlan(kPlan, "p.yaml")->slurm.tool_timeout_s, 30);  // the default
  t.replace(t.find("tool_timeout_s: 5"), 17, "tool_timeout_s: 0");
  auto bad = ParsePlan(t, "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("slurm.tool_timeout_s: must be a number in [0.1, 3600], got 0"),
            std::string::npos)
      << bad.status().message();
}

TEST(SlurmPlan, KnownStates) {
  EXPECT_TRUE(SlurmStateKnown("RUNNING"));
  EXPECT_TRUE(SlurmStateKnown("CANCELLED by 0"));
  EXPECT_TRUE(SlurmStateKnown("PENDING"));
  EXPECT_FALSE(SlurmStateKnown("BANANA"));
  EXPECT_FALSE(SlurmStateKnown(""));
}

// Fake Slurm tools on PATH (shell scripts in a scratch folder), so that the
// executor meets a controller that hangs or lies without a cluster.
class FakeSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    old_path_ = path != nullptr ? path : "";
    ::setenv("PATH", (tmp_.dir.string() + ":/usr/bin:/bin").c_str(), 1);
    Tool("scancel", "exit 0");
    Tool("scontrol", "exit 1");
    Tool("sacct", "exit 0");
  }
  void TearDown() override { ::setenv("PATH", old_path_.c_str(), 1); }

  void Tool(const std::string& name, const std::string& body) {
    const std::string p = (tmp_.dir / name).string();
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    ::chmod(p.c_str(), 0755);
  }

  // Runs a one-system simulated plan through the Slurm executor.
  Result<SweepOutcome> Run(const std::atomic<bool>* stop = nullptr) {
    auto plan = ParsePlan(R"(name: fake
systems:
  - {name: s1, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8}}
workloads:
  - {name: w}
load: {concurrency: [1]}
executor: slurm
slurm: {time: "00:10:00", tool_timeout_s: 0.5, poll_s: 0.1}
)",
                          (tmp_.dir / "p.yaml").string());
    EXPECT_TRUE(plan.ok()) << plan.status().message();
    auto store = store::OpenStore((tmp_.dir / "r.db").string(), store::OpenMode::kCreate);
    EXPECT_TRUE(store.ok());
    SlurmOptions o;
    o.frontier_bin = "/bin/true";
    o.plan_path = (tmp_.dir / "p.yaml").string();
    o.db = (tmp_.dir / "r.db").string();
    o.log_dir = (tmp_.dir / "logs").string();
    SweepOptions so;
    so.stop = stop;
    return MakeSlurmExecutor(o)->Run(*plan, **store, so);
  }

  testing_util::ScratchDir tmp_{"fake_slurm"};
  std::string old_path_;
};

TEST_F(FakeSlurm, AnSbatchThatHangsIsKilledAtItsTimeout) {
  Tool("sbatch", "sleep 100");
  auto out = Run();
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("sbatch did not finish within 0.5 s (slurm.tool_timeout_s); killed"),
            std::string::npos)
      << out.status().message();
}

TEST_F(FakeSlurm, AnUnknownStateIsAnErrorNamingTheJobAndTheState) {
  Tool("sbatch", "echo 4242");
  Tool("squeue", "echo BANANA");
  auto out = Run();
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->broken.size(), 1u);
  EXPECT_EQ(out->broken[0], "s1: job 4242: squeue printed the unknown job state 'BANANA'; the job was cancelled");
}

TEST_F(FakeSlurm, AnSqueueThatHangsBreaksTheSystemAfterThreePolls) {
  Tool("sbatch", "echo 4243");
  Tool("squeue", "sleep 100");
  auto out = Run();
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->broken.size(), 1u);
  EXPECT_NE(out->broken[0].find("s1: job 4243: squeue did not finish within 0.5 s (slurm.tool_timeout_s); killed "
                                "at 3 polls running"),
            std::string::npos)
      << out->broken[0];
}

TEST_F(FakeSlurm, AStopEndsThePollingOfAJobThatNeverEnds) {
  Tool("sbatch", "echo 4244");
  Tool("squeue", "echo RUNNING");
  Tool("scancel", "sleep 100");  // even a scancel that hangs is bounded
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  auto out = Run(&stop);
  stopper.join();
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->interrupted);
}

}  // namespace
}  // namespace frontier::sweep
