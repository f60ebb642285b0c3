// `frontier simulate --as-plan` below the command line: the plan text of a
// resolved invocation, and that it reads back (ParsePlan) as the deployment,
// workload and loads simulate resolved.
#include "sweep/simulate_plan.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include "sim/concurrency_sweep.h"
#include "sim/describe.h"
#include "sim/engine/spec_table.h"
#include "sweep/plan.h"
#include "sweep/sessions.h"
#include "sweep/system_run.h"

namespace frontier::sweep {
namespace {

// One invocation: the flags as simulate's parser fills them, and which were given.
struct Invocation {
  sim::Simulation s;  // points into itself once resolved: kept in place (unique_ptr)
  loadgen::WorkloadRequest w;
  std::set<std::string> flags;
  FlagGiven Given() const {
    return [this](const std::string& flag) { return flags.contains(flag); };
  }
};

// Resolves as cli/simulate_cmd.cc does before it would simulate.
void Resolve(Invocation* v) {
  for (const std::string& f : v->flags) v->w.given[f.substr(2)] = "";
  ASSERT_EQ(sim::SimulateUsageProblem(v->Given(), v->s.request, false, false, 0.5), "");
  sim::ApplySimulateFlags(v->Given(), 0.5, &v->s);
  Result<sim::SimConfig> config = sim::ResolveDeployment(v->s.request.spec, false);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  v->s.config = *config;
  Result<loadgen::ResolvedWorkload> w = loadgen::ResolveWorkload(v->w);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(sim::ResolveSimulatedWorkload(std::move(*w), &v->s).ok());
}

// simulate --hardware h200 --gpus 8 --model llama-3.1-8b --tp 1 --input-len 128
//          --output-len 64 --range-ratio 0 --concurrency 1,4 --num-prompts 16
std::unique_ptr<Invocation> ConcurrencySweep() {
  auto v = std::make_unique<Invocation>();
  sim::SimSpec& spec = v->s.request.spec;
  spec.hardware = "h200";
  spec.gpus = 8;
  spec.model = "llama-3.1-8b";
  spec.tp = 1;
  v->s.request.concurrency = "1,4";
  v->w.input_len = 128;
  v->w.output_len = 64;
  v->w.range_ratio = 0;
  v->w.num_prompts = 16;
  v->flags = {"--hardware", "--gpus", "--model", "--tp", "--concurrency", "--input-len", "--output-len",
              "--range-ratio", "--num-prompts"};
  Resolve(v.get());
  return v;
}

// A disaggregated deployment at one rate under a cap, with goodput's SLO and a plain SLO judged.
std::unique_ptr<Invocation> DisaggregatedRatePoint() {
  auto v = std::make_unique<Invocation>();
  sim::SimSpec& spec = v->s.request.spec;
  spec.hardware = "h200";
  spec.gpus = 16;
  spec.model = "deepseek-r1";
  spec.prefill_workers = 1;
  spec.prefill_tp = 8;
  spec.decode_workers = 1;
  spec.decode_tp = 8;
  spec.max_num_seqs = 64;
  spec.prefix_caching = false;
  spec.kv_precision = "fp8";
  v->w.request_rate = "2.5";
  v->w.max_concurrency = 8;
  v->w.num_prompts = 40;
  v->w.warmup = 2;
  v->w.seed = 7;
  v->w.input_len = 300;
  v->w.range_ratio = 0.25;
  v->w.goodput = {"ttft:450", "tpot:40"};
  v->w.slo = {"ttft_p99:450"};
  v->w.min_interactivity = 20;
  v->flags = {"--hardware", "--gpus", "--model", "--prefill-workers", "--prefill-tp", "--decode-workers",
              "--decode-tp", "--max-num-seqs", "--prefix-caching", "--kv-precision", "--request-rate",
              "--max-concurrency", "--num-prompts", "--warmup", "--seed", "--input-len", "--range-ratio",
              "--goodput", "--slo", "--min-interactivity"};
  Resolve(v.get());
  return v;
}

TEST(SimulatePlan, AConcurrencySweepIsOneSystemOneWorkloadAndItsLevels) {
  auto v = ConcurrencySweep();
  Result<std::string> text = SimulatePlan(v->s, v->w, v->Given());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "name: simulate\n"
            "systems:\n"
            "  - name: \"simulated llama-3.1-8b on 8x h200\"\n"
            "    hardware: h200\n"
            "    gpus: 8\n"
            "    sim: {model: llama-3.1-8b, tp: 1}\n"
            "workloads:\n"
            "  - {name: random, input_len: 128, output_len: 64, range_ratio: 0}\n"
            "load:\n"
            "  concurrency: [1, 4]\n"
            "  num_prompts: 16\n");
}

TEST(SimulatePlan, PoolsSettersRatesAndJudgingHaveTheirPlanKeys) {
  auto v = DisaggregatedRatePoint();
  Result<std::string> text = SimulatePlan(v->s, v->w, v->Given());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "name: simulate\n"
            "systems:\n"
            "  - name: \"simulated deepseek-r1 on 16x h200\"\n"
            "    hardware: h200\n"
            "    gpus: 16\n"
            "    sim: {model: deepseek-r1, kv_precision: fp8, max_num_seqs: 64, prefix_caching: off, "
            "prefill: {workers: 1, tp: 8}, decode: {workers: 1, tp: 8}}\n"
            "workloads:\n"
            "  - {name: random, input_len: 300, range_ratio: 0.25, seed: 7}\n"
            "load:\n"
            "  request_rate: [2.5]\n"
            "  num_prompts: 40\n"
            "  max_concurrency: 8\n"
            "  warmup: 2\n"
            "slo: {ttft_ms: 450, tpot_ms: 40}\n"
            "scenario: {slo: [\"ttft_p99:450\"], min_interactivity: 20}\n");
}

// The plan read back runs the deployment, the workload and the loads simulate resolved.
void ExpectSamePoints(const Invocation& v) {
  Result<std::string> text = SimulatePlan(v.s, v.w, v.Given());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->systems.size(), 1u);
  ASSERT_EQ(plan->workloads.size(), 1u);
  const SystemSpec& system = plan->systems[0];
  ASSERT_TRUE(system.sim.has_value());
  Result<sim::SimConfig> config = sim::ResolveSimConfig(*system.sim);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(sim::DescribeConfig(*config), sim::DescribeConfig(v.s.config));
  EXPECT_EQ(SimulatedSystem(*system.sim, *config).Config(), SimulatedSystem(v.s.request.spec, v.s.config).Config());
  EXPECT_EQ(system.sim->max_num_seqs_auto, v.s.request.spec.max_num_seqs_auto);

  const workload::DatasetOptions d = workload::ToDatasetOptions(plan->workloads[0]);
  EXPECT_EQ(d.kind, v.s.w.dataset.kind);
  EXPECT_EQ(d.seed, v.s.w.dataset.seed);
  EXPECT_EQ(d.random.input_len, v.s.w.dataset.random.input_len);
  EXPECT_EQ(d.random.output_len, v.s.w.dataset.random.output_len);
  EXPECT_EQ(d.random.range_ratio, v.s.w.dataset.random.range_ratio);
  EXPECT_EQ(d.random.prefix_len, v.s.w.dataset.random.prefix_len);

  // One point per level (or the one point), each with simulate's load.
  const std::vector<PointSpec> points = ExpandMatrix(*plan);
  const std::vector<int64_t> levels =
      v.s.levels.empty() ? std::vector<int64_t>{0} : v.s.levels;  // 0: the one point
  ASSERT_EQ(points.size(), levels.size());
  for (size_t i = 0; i < points.size(); ++i) {
    Result<workload::LoadOptions> l = PointLoad(*plan, points[i]);
    ASSERT_TRUE(l.ok());
    const workload::LoadOptions& want = v.s.w.load;
    if (v.s.levels.empty()) {
      EXPECT_EQ(l->max_concurrency, want.max_concurrency);
      EXPECT_EQ(l->num_prompts, want.num_prompts);
    } else {
      EXPECT_EQ(l->max_concurrency, levels[i]);
      EXPECT_EQ(l->num_prompts, sim::SweepPrompts(want.num_prompts, levels[i]));
    }
    EXPECT_EQ(l->request_rate, want.request_rate);
    EXPECT_EQ(l->burstiness, want.burstiness);
    EXPECT_EQ(l->warmup, want.warmup);
    EXPECT_EQ(l->seed, want.seed);
  }
  EXPECT_EQ(plan->slo.ttft_ms, v.s.w.summary.goodput.ttft_ms);
  EXPECT_EQ(plan->slo.tpot_ms, v.s.w.summary.goodput.tpot_ms);
  EXPECT_EQ(plan->slo.e2el_ms, v.s.w.summary.goodput.e2el_ms);
  EXPECT_EQ(plan->scenario.has_value(), v.s.w.scenario.has_value());
}

TEST(SimulatePlan, AConcurrencySweepReadsBackAsTheSamePoints) { ExpectSamePoints(*ConcurrencySweep()); }

TEST(SimulatePlan, ADisaggregatedRatePointReadsBackAsTheSamePoint) { ExpectSamePoints(*DisaggregatedRatePoint()); }

TEST(SimulatePlan, LoadsAPlanCannotExpressAreRefusedNamingTheFlag) {
  auto v = std::make_unique<Invocation>();
  v->s.request.spec.hardware = "h200";
  v->s.request.spec.model = "llama-3.1-8b";
  v->w.num_prompts = 8;
  v->flags = {"--hardware", "--model", "--num-prompts"};
  Resolve(v.get());
  Result<std::string> text = SimulatePlan(v->s, v->w, v->Given());  // all at once
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find("give --max-concurrency, --request-rate or --concurrency"), std::string::npos);

  v = std::make_unique<Invocation>();
  v->s.request.spec.hardware = "h200";
  v->s.request.spec.model = "llama-3.1-8b";
  v->w.num_prompts = 8;
  v->w.max_concurrency = 4;
  v->flags = {"--hardware", "--model", "--num-prompts", "--max-concurrency"};
  Resolve(v.get());
  text = SimulatePlan(v->s, v->w, v->Given());  // a plan's point would send 16
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("--num-prompts 8 below 4 x --max-concurrency 4"), std::string::npos)
      << text.status().message();
}

TEST(SimulatePlan, FlagsWithoutPlanFormAreUsageErrors) {
  sim::SimulateRequest r;
  r.as_plan = true;
  for (const char* flag : sim::SimulateFlagsWithoutPlanForm()) {
    const FlagGiven given = [&](const std::string& f) { return f == flag || f == "--model" || f == "--hardware"; };
    EXPECT_EQ(sim::SimulateUsageProblem(given, r, false, false, 0.5),
              std::string(flag) + " has no plan form; drop it or run simulate without --as-plan");
  }
  r.as_plan = false;
  const FlagGiven explain = [](const std::string& f) { return f == "--explain" || f == "--model" || f == "--hardware"; };
  EXPECT_EQ(sim::SimulateUsageProblem(explain, r, false, false, 0.5), "");
}

// Every row of SimSpec's table with a plan key is written by --as-plan and read
// back by the plan reader as the same value: a flag added to the table is a
// plan key too, or this fails. Only the system's own (--hardware, --gpus)
// have none.
TEST(SimulatePlan, EverySimSpecFieldRoundTripsThroughThePlanText) {
  const std::unique_ptr<Invocation> base = ConcurrencySweep();  // 8 GPUs of h200
  std::set<std::string> systems_own;
  for (const sim::SimSpecField& field : sim::SimSpecTable()) {
    const std::string flag = field.flag.name, key = field.plan_key;
    if (key.empty()) {
      systems_own.insert(flag);
      continue;
    }
    Invocation v;
    v.s.request = base->s.request;
    v.s.config = base->s.config;
    v.s.w = base->s.w;
    v.s.levels = base->s.levels;
    v.w = base->w;
    v.flags = base->flags;
    v.flags.insert(flag);
    sim::SimSpec& spec = v.s.request.spec;
    // A value other than the default, inside the bounds and the system's 8 GPUs.
    std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<decltype(member), FlagRow<sim::SimSpec>::Setter>) {
            if (flag == "--max-num-seqs") spec.max_num_seqs = 2;
            else if (flag == "--prefix-caching") spec.prefix_caching = false;
            else ADD_FAILURE() << flag << ": a setter this test does not know";
          } else {
            auto& out = spec.*member;
            using V = std::decay_t<decltype(out)>;
            if constexpr (std::is_same_v<V, int>) out = flag == "--dp" ? 8 : 2;
            else if constexpr (std::is_same_v<V, bool>) out = !out;
            else if constexpr (std::is_same_v<V, std::string>) out = "llama-3.1-70b";
            else if constexpr (std::is_same_v<V, std::optional<std::string>>) out = "fp8";
            else if constexpr (std::is_same_v<V, std::optional<int>>) out = 2;
            else if constexpr (std::is_same_v<V, std::optional<double>>) out = (field.min + field.max) / 2;
            else ADD_FAILURE() << flag << ": a field type this test does not know";
          }
        },
        field.flag.field);
    if (key.find('.') != std::string::npos) {  // a pool's: both pools, as a plan needs
      v.flags.insert({"--prefill-workers", "--decode-workers"});
      if (flag != "--prefill-workers") spec.prefill_workers = 1;
      if (flag != "--decode-workers") spec.decode_workers = 1;
    }
    Result<std::string> text = SimulatePlan(v.s, v.w, v.Given());
    ASSERT_TRUE(text.ok()) << flag << ": " << text.status().ToString();
    const std::string written = key.find('.') == std::string::npos ? key + ": " : key.substr(key.find('.') + 1) + ": ";
    EXPECT_NE(text->find(written), std::string::npos) << flag << " as " << key << " in\n" << *text;
    Result<Plan> plan = ParsePlan(*text, "p.yaml");
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_TRUE(plan->systems[0].sim);
    const sim::SimSpec& read = *plan->systems[0].sim;
    EXPECT_EQ(read.max_num_seqs, spec.max_num_seqs) << flag;
    EXPECT_EQ(read.prefix_caching, spec.prefix_caching) << flag;
    std::visit(
        [&](auto member) {
          if constexpr (!std::is_same_v<decltype(member), FlagRow<sim::SimSpec>::Setter>) {
            EXPECT_TRUE(read.*member == spec.*member) << flag << " did not read back";
          }
        },
        field.flag.field);
  }
  EXPECT_EQ(systems_own, (std::set<std::string>{"--hardware", "--gpus"}));
}

// max_num_seqs' word reads back too.
TEST(SimulatePlan, MaxNumSeqsAutoRoundTrips) {
  std::unique_ptr<Invocation> v = ConcurrencySweep();
  v->s.request.spec.max_num_seqs_auto = true;
  v->s.request.spec.max_num_seqs.reset();
  v->flags.insert("--max-num-seqs");
  Result<std::string> text = SimulatePlan(v->s, v->w, v->Given());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->systems[0].sim->max_num_seqs_auto);
}

}  // namespace
}  // namespace frontier::sweep
