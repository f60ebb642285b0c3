// `--as-plan` of simulate, bench and search below the command line: the plan
// text of a resolved invocation, and that it reads back (ParsePlan) as the
// system, workload, loads and search the command resolved.
#include "sweep/as_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "loadgen/target_request.h"
#include "sim/concurrency_sweep.h"
#include "sim/describe.h"
#include "sim/engine/spec_table.h"
#include "sweep/plan.h"
#include "sweep/search_job.h"
#include "sweep/sessions.h"
#include "sweep/system_run.h"
#include "workload/spec.h"

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
            "  - {name: 128/64, input_len: 128, output_len: 64, range_ratio: 0}\n"
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
            "  - {name: 300/128, input_len: 300, range_ratio: 0.25, seed: 7}\n"
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

// simulate --hardware h200 --model llama-3.1-8b --request-rate 4 --burstiness 1000000 --num-prompts 16:
// a plan takes the flag's whole range of burstiness (it stopped at 1e3, and the plan printed did not parse).
TEST(SimulatePlan, ABurstinessAtTheFlagsBoundReadsBackAsTheSamePoint) {
  auto v = std::make_unique<Invocation>();
  sim::SimSpec& spec = v->s.request.spec;
  spec.hardware = "h200";
  spec.model = "llama-3.1-8b";
  v->w.request_rate = "4";
  v->w.burstiness = "1000000";
  v->w.num_prompts = 16;
  v->flags = {"--hardware", "--model", "--request-rate", "--burstiness", "--num-prompts"};
  Resolve(v.get());
  EXPECT_EQ(v->s.w.load.burstiness, 1e6);
  ExpectSamePoints(*v);
}

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
  for (const std::string& flag : sim::SimulateFlagsWithoutPlanForm()) {
    const FlagGiven given = [&](const std::string& f) { return f == flag || f == "--model" || f == "--hardware"; };
    EXPECT_EQ(sim::SimulateUsageProblem(given, r, false, false, 0.5),
              flag + " has no plan form; drop it or run simulate without --as-plan");
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


// bench --base-url http://127.0.0.1:8000 --model fixed --api-key sk-secret
//       --header 'X-Token: abc' --input-len 32 --output-len 16 --max-concurrency 2
//       --num-prompts 8 --goodput ttft:100 --num-gpus 2 --power nvml
struct BenchInvocation {
  BenchRequest r;
  loadgen::TargetRequest t;
  loadgen::WorkloadRequest w;
};

BenchInvocation OneBenchPoint() {
  BenchInvocation b;
  b.r.model = b.t.model = "fixed";
  b.r.power_kind = "nvml";
  b.r.as_plan = true;
  b.t.api_key = "sk-secret";
  b.t.headers = {"X-Token: abc"};
  b.w.input_len = 32;
  b.w.output_len = 16;
  b.w.max_concurrency = 2;
  b.w.num_prompts = 8;
  b.w.goodput = {"ttft:100"};
  b.w.num_gpus = 2;
  for (const char* f : {"input-len", "output-len", "max-concurrency", "num-prompts", "goodput", "num-gpus"})
    b.w.given[f] = "";
  return b;
}

TEST(BenchPlan, OnePointOfAServerSystemWithoutItsSecrets) {
  const BenchInvocation b = OneBenchPoint();
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "name: bench\n"
            "# --api-key is left out: a plan holds no secret; a sweep sends $OPENAI_API_KEY when it is set\n"
            "# --header is left out: a plan holds no secret and a sweep sends no headers\n"
            "systems:\n"
            "  - name: \"http://127.0.0.1:8000\"\n"
            "    model: fixed\n"
            "    base_url: \"http://127.0.0.1:8000\"\n"
            "    backend: openai\n"
            "    gpus: 2\n"
            "    power: nvml\n"
            "workloads:\n"
            "  - {name: 32/16, input_len: 32, output_len: 16}\n"
            "load:\n"
            "  concurrency: [2]\n"
            "  num_prompts: 8\n"
            "slo: {ttft_ms: 100}\n");
  EXPECT_EQ(text->find("sk-secret"), std::string::npos);
  EXPECT_EQ(text->find("abc"), std::string::npos);
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const SystemSpec& system = plan->systems[0];
  EXPECT_EQ(system.base_url, b.t.base_url);
  EXPECT_EQ(system.model, "fixed");
  EXPECT_EQ(system.endpoint, "/v1/completions");
  EXPECT_EQ(system.gpus, 2);
  EXPECT_EQ(system.measure.power_kind, "nvml");
  const std::vector<PointSpec> points = ExpandMatrix(*plan);
  ASSERT_EQ(points.size(), 1u);
  Result<workload::LoadOptions> l = PointLoad(*plan, points[0]);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->max_concurrency, 2);
  EXPECT_EQ(l->num_prompts, 8);
  EXPECT_EQ(plan->slo.ttft_ms, 100);
}

TEST(BenchPlan, WithoutASecretNoCommentAndTheEndpointAndPowerURLAreKept) {
  BenchInvocation b = OneBenchPoint();
  ::unsetenv("OPENAI_API_KEY");
  b.t.api_key.clear();
  b.t.headers.clear();
  b.t.endpoint = "/v1/chat/completions";
  b.r.power_kind = "scrape";
  b.r.power_url = "http://127.0.0.1:9400/metrics";
  b.w.request_rate = "4";
  b.w.given["request-rate"] = "";
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->find('#'), std::string::npos) << *text;
  EXPECT_NE(text->find("    endpoint: /v1/chat/completions\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("    power: scrape\n    power_url: \"http://127.0.0.1:9400/metrics\"\n"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("load:\n  request_rate: [4]\n  num_prompts: 8\n  max_concurrency: 2\n"), std::string::npos)
      << *text;
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->systems[0].endpoint, "/v1/chat/completions");
  EXPECT_EQ(plan->systems[0].measure.power_url, "http://127.0.0.1:9400/metrics");
}

// --grace, --duration, --percentiles and --timeslice written by bench
// --as-plan and read back as the values bench runs with: the system's grace
// (the point's run.grace, loadgen::ApplyTarget), the point's duration
// (PointLoad) and the plan's summary settings (the sweep's points' summary).
TEST(BenchPlan, GraceDurationPercentilesAndTimesliceRoundTrip) {
  BenchInvocation b = OneBenchPoint();
  b.t.grace_s = 2.5;
  b.w.duration_s = 30;
  b.w.percentiles = "50,75,99.9";
  b.w.timeslice_s = 2;
  for (const char* f : {"duration", "percentiles", "timeslice"}) b.w.given[f] = "";
  const Result<loadgen::ResolvedWorkload> rw = loadgen::ResolveWorkload(b.w);
  ASSERT_TRUE(rw.ok()) << rw.status().ToString();
  Result<std::string> text = BenchPlan(b.r, b.t, rw, b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_NE(text->find("    grace_s: 2.5\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("load:\n  concurrency: [2]\n  num_prompts: 8\n  duration_s: 30\n"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("\npercentiles: [50, 75, 99.9]\ntimeslice_s: 2\n"), std::string::npos) << *text;
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->systems[0].target.grace_s, 2.5);
  EXPECT_EQ(plan->systems[0].Config().at("grace_s"), "2.5");
  EXPECT_EQ(plan->percentiles, rw->summary.percentiles);
  EXPECT_EQ(plan->percentiles, (std::vector<double>{50, 75, 99.9}));
  EXPECT_EQ(plan->timeslice_s, rw->summary.timeslice.slice_s);
  const std::vector<PointSpec> points = ExpandMatrix(*plan);
  ASSERT_EQ(points.size(), 1u);
  Result<workload::LoadOptions> l = PointLoad(*plan, points[0]);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->duration_s, rw->load.duration_s);
  EXPECT_EQ(l->duration_s, 30);
  EXPECT_EQ(l->num_prompts, rw->load.num_prompts);
  // The client the sweep's point is sent with (sessions.cc) stops with bench's grace.
  loadgen::BenchOptions o;
  ASSERT_TRUE(loadgen::ApplyTarget(plan->systems[0].target, "fixed", false, &o).ok());
  EXPECT_EQ(o.run.grace, 2'500'000'000);
  // Without them the plan says nothing of them, and the defaults are bench's.
  const BenchInvocation plain = OneBenchPoint();
  const Result<loadgen::ResolvedWorkload> prw = loadgen::ResolveWorkload(plain.w);
  text = BenchPlan(plain.r, plain.t, prw, plain.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  for (const char* key : {"grace_s", "duration_s", "percentiles", "timeslice_s"})
    EXPECT_EQ(text->find(key), std::string::npos) << key << "\n" << *text;
  plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->percentiles, prw->summary.percentiles);
  EXPECT_EQ(plan->timeslice_s, prw->summary.timeslice.slice_s);
  EXPECT_EQ(plan->systems[0].target.grace_s, plain.t.grace_s);
  EXPECT_FALSE(plan->load.duration_s.has_value());
}

TEST(BenchPlan, ADurationWithoutACountIsRefusedNamingTheFlags) {
  BenchInvocation b = OneBenchPoint();
  b.w.given.erase("num-prompts");
  b.w.duration_s = 30;
  b.w.given["duration"] = "";
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(text.status().message(),
            "--duration without --num-prompts has no plan form: a plan's point sends a count of requests and stops "
            "at load.duration_s if that comes first; give --num-prompts");
}

// Every target flag with a plan key is written by bench --as-plan and read
// back into the system's client settings as the same value: a flag given a
// plan key in loadgen::TargetFieldTable is written and read, or this fails.
TEST(BenchPlan, EveryTargetFieldWithAPlanKeyRoundTripsThroughThePlanText) {
  int keyed = 0;
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable()) {
    const std::string key = field.plan_key;
    if (key.empty()) continue;
    ++keyed;
    BenchInvocation b = OneBenchPoint();
    loadgen::TargetRequest& t = b.t;
    // A value unlike the default, within the field's bounds.
    if (key == "extra_body") t.extra_body = "{\"top_p\": 0.5, \"stop\": [\"x: y\"]}";
    if (key == "usage") t.usage = "final";
    if (key == "insecure") t.insecure = true;
    if (key == "timeout_s") t.timeout_s = 1234.5;
    if (key == "connect_timeout_s") t.connect_timeout_s = field.min;
    if (key == "first_token_timeout_s") t.first_token_timeout_s = field.max;
    if (key == "grace_s") t.grace_s = 0.25;
    if (key == "workers") t.workers = "auto";
    if (key == "vocab_size") t.vocab_size = 128256;
    const std::map<std::string, std::string> given = TargetConfig(t);
    ASSERT_EQ(given.size(), 1u) << key << ": the test sets no value unlike the default for it";
    Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
    ASSERT_TRUE(text.ok()) << key << ": " << text.status().ToString();
    Result<Plan> plan = ParsePlan(*text, "p.yaml");
    ASSERT_TRUE(plan.ok()) << key << ": " << plan.status().ToString() << "\n" << *text;
    EXPECT_EQ(TargetConfig(plan->systems[0].target), given) << *text;
    EXPECT_EQ(plan->systems[0].Config().at(key), given.at(key));  // stored with the system's run
  }
  EXPECT_EQ(keyed, 9);
}

// bench's measurement flags as a server system's keys, read back as the
// measurement bench takes (sessions.cc builds a MeasureRequest from them).
TEST(BenchPlan, TheMeasurementFlagsAreTheSystemsKeys) {
  BenchInvocation b = OneBenchPoint();
  b.r.scrape = true;
  b.r.scrape_url = "http://127.0.0.1:9400/metrics";
  b.r.scrape_interval_s = 0.25;
  b.r.power_kind = "scrape";
  b.r.power_interval_s = 0.5;
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_NE(text->find("    power: scrape\n    power_interval_s: 0.5\n"
                       "    scrape_interval_s: 0.25\n    scrape_metrics: \"http://127.0.0.1:9400/metrics\"\n"),
            std::string::npos)
      << *text;
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const SystemSpec& s = plan->systems[0];
  EXPECT_EQ(s.measure.power_kind, "scrape");  // its URL the scrape's, as bench's --power scrape
  EXPECT_EQ(s.measure.power_url, "");
  EXPECT_EQ(s.measure.power_interval_s, 0.5);
  EXPECT_TRUE(s.measure.scrape);
  EXPECT_EQ(s.measure.scrape_url, "http://127.0.0.1:9400/metrics");
  EXPECT_EQ(s.measure.scrape_interval_s, 0.25);
  EXPECT_EQ(MeasureConfig(s.measure), MeasureConfig(b.r));  // one form: what bench asked is what the plan holds
  EXPECT_EQ(s.Config().at("scrape_metrics"), "http://127.0.0.1:9400/metrics");
  EXPECT_EQ(s.Config().at("scrape_interval_s"), "0.25");
  b.r.scrape_url.clear();  // --scrape-metrics without a URL: the base URL's /metrics
  text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_NE(text->find("    scrape_metrics: true\n"), std::string::npos) << *text;
  plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->systems[0].measure.scrape);
  EXPECT_EQ(plan->systems[0].measure.scrape_url, "");
  const std::string head = "name: p\nsystems:\n  - {name: s, model: m, base_url: \"http://127.0.0.1:8000\", ";
  const std::string tail = "}\nworkloads:\n  - {name: w}\nload:\n  concurrency: [1]\n";
  for (const auto& [field, message] : std::vector<std::pair<std::string, std::string>>{
           {"scrape_interval_s: 0.01", "p.yaml:3: systems[0].scrape_interval_s: must be a number in [0.05, 3600], got 0.01"},
           {"power_interval_s: 61", "p.yaml:3: systems[0].power_interval_s: must be a number in [0.01, 60], got 61"},
           {"scrape_metrics: sometimes",
            "p.yaml:3: systems[0].scrape_metrics: must be true, false or a URL (http://HOST:PORT/metrics), got 'sometimes'"},
           {"power: scrape",
            "p.yaml:3: systems[0].power: scrape needs power_url (a DCGM exporter's /metrics) or scrape_metrics (read "
            "from there)"}}) {
    Result<Plan> bad = ParsePlan(head + field + tail, "p.yaml");
    ASSERT_FALSE(bad.ok()) << field;
    EXPECT_EQ(bad.status().message(), message) << field;
  }
}

TEST(BenchPlan, ATargetFieldOutOfItsRangeOrFormIsNamedByItsPlanKey) {
  const std::string head = "name: p\nsystems:\n  - {name: s, model: m, base_url: \"http://127.0.0.1:8000\", ";
  const std::string tail = "}\nworkloads:\n  - {name: w}\nload:\n  concurrency: [1]\n";
  for (const auto& [field, message] : std::vector<std::pair<std::string, std::string>>{
           {"timeout_s: -1", "p.yaml:3: systems[0].timeout_s: must be a number in [0, 1000000], got -1"},
           {"connect_timeout_s: 0", "p.yaml:3: systems[0].connect_timeout_s: must be a number in [0.001, 1000000], got 0"},
           {"grace_s: 2e6", "p.yaml:3: systems[0].grace_s: must be a number in [0, 1000000], got 2e6"},
           {"vocab_size: 1", "p.yaml:3: systems[0].vocab_size: must be an integer in [2, 2147483647], got 1"},
           {"usage: sometimes", "p.yaml:3: systems[0].usage: must be continuous, final or off, got 'sometimes'"},
           {"workers: many", "p.yaml:3: systems[0].workers: must be auto or an integer in [1, 1024], got 'many'"},
           {"extra_body: '[1]'", "p.yaml:3: systems[0].extra_body: must be a JSON object, e.g. '{\"top_p\": 0.9}'"},
           {"extra_body: {\"top_p\": 0.9}",
            "p.yaml:3: systems[0].extra_body: must be a JSON object in quotes, e.g. extra_body: '{\"top_p\": 0.9}'"},
           {"insecure: maybe", "p.yaml:3: systems[0].insecure: must be true or false"}}) {
    Result<Plan> plan = ParsePlan(head + field + tail, "p.yaml");
    ASSERT_FALSE(plan.ok()) << field;
    EXPECT_EQ(plan.status().message(), message) << field;
  }
  Result<Plan> sim = ParsePlan("name: p\nsystems:\n  - {name: s, hardware: h200, sim: {model: llama-3.1-8b}, timeout_s: 5" + tail,
                               "p.yaml");
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.status().message().find("systems[0].timeout_s: applies to a system measured over HTTP"),
            std::string::npos)
      << sim.status().message();
}

TEST(BenchPlan, IgnoreEosGivenIsAWorkloadFieldAndItsDefaultFollowsTheDataset) {
  BenchInvocation b = OneBenchPoint();
  b.w.ignore_eos = false;
  b.w.given["ignore-eos"] = "false";
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_NE(text->find("  - {name: 32/16, input_len: 32, output_len: 16, ignore_eos: false}\n"), std::string::npos)
      << *text;
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_FALSE(workload::IgnoreEosFor(plan->workloads[0]));
  workload::WorkloadSpec w;  // random prompts: on; a dataset's own answers: off
  EXPECT_TRUE(workload::IgnoreEosFor(w));
  w.dataset = "mlperf:llama2-70b";
  EXPECT_TRUE(workload::IgnoreEosFor(w));
  for (const char* dataset : {"sharegpt", "jsonl", "shared-prefix", "trace", "multi-turn"}) {
    w.dataset = dataset;
    EXPECT_FALSE(workload::IgnoreEosFor(w)) << dataset;
  }
  w.ignore_eos = true;
  EXPECT_TRUE(workload::IgnoreEosFor(w));
}

TEST(BenchPlan, ATokenizerIsARandomWorkloadsFieldThatMustExist) {
  const std::string head = "name: p\nsystems:\n  - {name: s, model: m, base_url: \"http://127.0.0.1:8000\"}\n"
                           "workloads:\n  - {name: w, ";
  const std::string tail = "}\nload:\n  concurrency: [1]\n";
  for (const auto& [field, message] : std::vector<std::pair<std::string, std::string>>{
           {"tokenizer: t.json, prompt_format: token-ids",
            "p.yaml:5: workloads[0].tokenizer: makes text prompts: drop prompt_format token-ids"},
           {"dataset: jsonl, path: d.jsonl, tokenizer: t.json",
            "p.yaml:5: workloads[0].tokenizer: is not read by dataset jsonl (docs/workloads.md lists each dataset's "
            "fields)"}}) {
    Result<Plan> bad = ParsePlan(head + field + tail, "p.yaml");
    ASSERT_FALSE(bad.ok()) << field;
    EXPECT_EQ(bad.status().message(), message) << field;
  }
  Result<Plan> plan = ParsePlan(head + "tokenizer: no-such-tokenizer.json" + tail, "/nonexistent/p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(workload::PromptFormatFor(plan->workloads[0], /*over_http=*/true), workload::PromptFormat::kText);
  const Status missing = CheckWorkloadFiles(*plan);
  EXPECT_EQ(missing.message(), "/nonexistent/p.yaml:5: workloads[0].tokenizer: no such file or directory: "
                               "/nonexistent/no-such-tokenizer.json");
}

TEST(BenchPlan, OnePointSentAllAtOnceIsRefusedNamingBenchsFlags) {
  BenchInvocation b = OneBenchPoint();
  b.w.max_concurrency = 0;
  b.w.given.erase("max-concurrency");
  Result<std::string> text = BenchPlan(b.r, b.t, loadgen::ResolveWorkload(b.w), b.w);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find("give --max-concurrency or --request-rate"), std::string::npos)
      << text.status().message();
}

TEST(BenchPlan, FlagsWithoutPlanFormAreUsageErrors) {
  BenchRequest r;
  r.as_plan = true;
  const std::vector<std::string> refused = BenchFlagsWithoutPlanForm();
  for (const char* flag : {"--db", "--run-label", "--shard", "--rendezvous", "--result-json", "--requests-jsonl"})
    EXPECT_NE(std::find(refused.begin(), refused.end(), flag), refused.end()) << flag;
  for (const char* flag : {"--grace", "--duration", "--percentiles", "--timeslice",
                           "--power", "--power-url", "--power-interval", "--scrape-metrics", "--scrape-interval",
                           "--base-url", "--backend", "--endpoint", "--model", "--api-key",
                           "--header", "--as-plan", "--timeout", "--connect-timeout", "--first-token-timeout",
                           "--workers", "--insecure", "--vocab-size", "--extra-body", "--usage", "--ignore-eos",
                           "--tokenizer"})
    EXPECT_EQ(std::find(refused.begin(), refused.end(), flag), refused.end()) << flag;
  for (const std::string& flag : refused) {
    const FlagGiven given = [&](const std::string& f) { return f == flag; };
    EXPECT_EQ(BenchRequestProblem(r, given), flag + " has no plan form; drop it or run bench without --as-plan");
  }
  r.as_plan = false;
  EXPECT_EQ(BenchRequestProblem(r, [](const std::string& f) { return f == "--shard"; }), "");
}

// search --model llama-3.1-8b --hardware h100-sxm --input-len 256 --output-len 64
//        --num-prompts 200 --slo ttft_p99:450 --slo tpot_p99:40 --min-interactivity 25
//        --over concurrency --max-trials 6 --no-saturation-stop
struct SearchInvocation {
  SearchJob job;
  loadgen::WorkloadRequest w;
  std::set<std::string> flags;
  FlagGiven Given() const {
    return [this](const std::string& flag) { return flags.contains(flag); };
  }
};

std::unique_ptr<SearchInvocation> SimulatedSearch() {
  auto v = std::make_unique<SearchInvocation>();
  sim::SimSpec spec;
  spec.hardware = "h100-sxm";
  spec.model = "llama-3.1-8b";
  v->w.input_len = 256;
  v->w.output_len = 64;
  v->w.num_prompts = 200;
  v->w.slo = {"ttft_p99:450", "tpot_p99:40"};
  v->w.min_interactivity = 25;
  SearchSettings settings;
  settings.request.over = "concurrency";
  settings.request.max_trials = 6;
  settings.request.saturation_stop = false;
  settings.request.as_plan = true;
  v->flags = {"--model",       "--hardware",          "--input-len", "--output-len",         "--num-prompts",
              "--slo",         "--min-interactivity", "--over",      "--max-trials",         "--no-saturation-stop",
              "--as-plan"};
  for (const std::string& f : v->flags) v->w.given[f.substr(2)] = "";
  EXPECT_EQ(SearchUsageProblem(v->Given(), /*live=*/false), "");
  Result<loadgen::ResolvedWorkload> w = loadgen::ResolveWorkload(v->w);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  v->job.w = std::move(*w);
  EXPECT_TRUE(SimulateSearch(spec, &v->job).ok());
  Status st = ResolveSearchOptions(settings, &v->job);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return v;
}

TEST(SearchPlan, ASimulatedSearchIsItsSystemWorkloadScenarioAndSearchBlock) {
  auto v = SimulatedSearch();
  Result<std::string> text = SearchPlan(v->job, loadgen::TargetRequest{}, v->w, v->Given());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "name: search\n"
            "systems:\n"
            "  - name: \"simulated llama-3.1-8b on 1x h100-sxm\"\n"
            "    hardware: h100-sxm\n"
            "    gpus: 1\n"
            "    sim: {model: llama-3.1-8b}\n"
            "workloads:\n"
            "  - {name: 256/64, input_len: 256, output_len: 64}\n"
            "load:\n"
            "  num_prompts: 200\n"
            "scenario: {slo: [\"ttft_p99:450\", \"tpot_p99:40\"], min_interactivity: 25}\n"
            "search: {over: concurrency, max_trials: 6, saturation_stop: false}\n");
  Result<Plan> plan = ParsePlan(*text, "p.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(plan->search.has_value());
  const loadgen::SearchRequest& read = plan->search->request;
  EXPECT_EQ(read.over, "concurrency");
  EXPECT_EQ(read.max_trials, 6);
  EXPECT_FALSE(read.saturation_stop);
  EXPECT_EQ(read.start, v->job.request.start);
  EXPECT_EQ(read.growth, v->job.request.growth);
  // Each trial's base load is the command's.
  const workload::LoadOptions base = SearchBaseLoad(*plan, plan->workloads[0]);
  EXPECT_EQ(base.num_prompts, v->job.options.base.num_prompts);
  EXPECT_EQ(base.seed, v->job.options.base.seed);
  EXPECT_EQ(base.warmup, v->job.options.base.warmup);
  EXPECT_EQ(base.max_concurrency, v->job.options.base.max_concurrency);
}

TEST(SearchPlan, FlagsWithoutPlanFormAreUsageErrors) {
  const std::vector<std::string> refused = SearchFlagsWithoutPlanForm();
  for (const char* flag : {"--db", "--run-label", "--client-rtt-us", "--duration", "--result-json"})
    EXPECT_NE(std::find(refused.begin(), refused.end(), flag), refused.end()) << flag;
  for (const char* flag : {"--timeout", "--grace", "--percentiles", "--timeslice"})
    EXPECT_EQ(std::find(refused.begin(), refused.end(), flag), refused.end()) << flag;
  for (const std::string& flag : refused) {
    const FlagGiven given = [&](const std::string& f) {
      return f == flag || f == "--as-plan" || f == "--model" || f == "--base-url";
    };
    EXPECT_EQ(SearchUsageProblem(given, /*live=*/true),
              flag + " has no plan form; drop it or run search without --as-plan");
  }
}

}  // namespace
}  // namespace frontier::sweep
