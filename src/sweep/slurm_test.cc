// The Slurm executor's plan fields and the jobs it would submit (the jobs
// themselves run in tests/slurm/ on a real cluster).
#include "sweep/slurm.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace frontier::sweep
