#include "sim/fit/calibration.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

// The tiny deployment with the given parameters as its stack.
SimConfig Config(const StackParams& p) {
  SimConfig c = testing::TinyConfig();
  c.stack.params = p;
  c.max_num_seqs = 512;
  c.max_num_batched_tokens = 4096;
  c.memory = PlanMemory(c);
  return c;
}

// `n` requests of `in` and `out` tokens.
std::vector<workload::RequestSpec> Requests(int64_t n, int32_t in, int32_t out) {
  std::vector<workload::RequestSpec> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    r[static_cast<size_t>(i)].id = i;
    r[static_cast<size_t>(i)].input_len = in;
    r[static_cast<size_t>(i)].output_len = out;
  }
  return r;
}

// Synthetic measurements: batches and closed loops simulated with `truth`,
// on the tiny GPU or (`fast`) one with 1.5 times its bandwidth and peak.
std::vector<ResultModel> Measure(const StackParams& truth, const StackParams& start, bool fast = false) {
  auto config = [fast](const StackParams& p) {
    SimConfig c = Config(p);
    if (fast) {
      c.hardware.name = "tiny-fast";
      c.hardware.hbm_tbps *= 1.5;
      c.hardware.bf16_tflops *= 1.5;
      c.memory = PlanMemory(c);
    }
    return c;
  };
  std::vector<ResultModel> models;
  struct Run {
    Scenario scenario;
    int64_t n, concurrency;
    int32_t in, out;
  };
  const Run runs[] = {{Scenario::kBatch, 1, 0, 128, 64},       {Scenario::kBatch, 8, 0, 128, 64},
                      {Scenario::kBatch, 32, 0, 128, 64},      {Scenario::kBatch, 96, 0, 128, 64},
                      {Scenario::kBatch, 200, 0, 128, 64},     {Scenario::kBatch, 400, 0, 128, 64},
                      {Scenario::kClosedLoop, 64, 8, 512, 32}, {Scenario::kClosedLoop, 256, 64, 512, 32}};
  for (const Run& run : runs) {
    PublishedResult r;
    r.id = std::string(ScenarioName(run.scenario)) + "-" + std::to_string(run.n) + "-" +
           std::to_string(run.concurrency) + (fast ? "-fast" : "");
    r.scenario = run.scenario;
    r.concurrency = run.concurrency;
    r.value = 1;  // replaced by the measurement below
    ResultModel truth_model = ResultModel::FromRun(r, config(truth), Requests(run.n, run.in, run.out));
    Result<double> measured = truth_model.Simulate(truth);
    EXPECT_TRUE(measured.ok());
    r.value = *measured;
    models.push_back(ResultModel::FromRun(r, config(start), Requests(run.n, run.in, run.out)));
  }
  return models;
}

// Known parameters, a stack that starts 50-200 % off them, and measurements
// simulated with the known ones: the fit recovers each within 2 %.
TEST(CalibrationTest, RecoversKnownParametersFromSyntheticMeasurements) {
  StackParams truth = testing::IdealParams();
  truth.gemm_bf16 = Curve{0.6, 48};
  truth.kernel_us = 3;
  StackParams start = truth;
  start.gemm_bf16 = Curve{0.9, 150};
  start.kernel_us = 9;
  std::vector<ResultModel> models = Measure(truth, start);
  Stack stack;
  stack.name = "synthetic";
  stack.version = "0";
  stack.params = stack.priors = start;
  CalibrationOptions o;
  o.free = {"gemm.bf16.max", "gemm.bf16.half", "overhead.kernel_us"};
  Result<CalibrationResult> r = Calibrate(stack, models, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(r->params.gemm_bf16.max / 0.6, 1.0, 0.02);
  EXPECT_NEAR(r->params.gemm_bf16.half / 48, 1.0, 0.02);
  EXPECT_NEAR(r->params.kernel_us / 3, 1.0, 0.02);
  for (const auto& p : r->points) {
    EXPECT_NEAR(p.error, 0.0, 0.005) << p.id;
    // Leave-one-out: refitted without the point, still close on exact data.
    EXPECT_NEAR(p.loo_error, 0.0, 0.05) << p.id;
    EXPECT_GT(p.loo_predicted, 0) << p.id;
  }
  EXPECT_GT(r->iterations, 0);
}

// Points on two GPUs: each GPU's points are also predicted by a refit without
// that GPU (cross-GPU errors); on exact data from one set of parameters the
// refit carries over, so the cross-GPU errors are as small as the
// leave-one-out ones. Points on one GPU, or cross_gpu off, record none.
TEST(CalibrationTest, CrossGpuRefitsPredictEachGpuFromTheOthers) {
  StackParams truth = testing::IdealParams();
  truth.gemm_bf16 = Curve{0.6, 48};
  truth.kernel_us = 3;
  StackParams start = truth;
  start.gemm_bf16 = Curve{0.9, 150};
  start.kernel_us = 9;
  std::vector<ResultModel> models = Measure(truth, start);
  std::vector<ResultModel> faster = Measure(truth, start, /*fast=*/true);
  Stack stack;
  stack.name = "synthetic";
  stack.version = "0";
  stack.params = stack.priors = start;
  CalibrationOptions o;
  o.free = {"gemm.bf16.max", "gemm.bf16.half", "overhead.kernel_us"};

  std::vector<ResultModel> one_gpu = models;
  Result<CalibrationResult> single = Calibrate(stack, one_gpu, o);
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  for (const auto& p : single->points) EXPECT_EQ(p.cross_gpu_predicted, 0) << p.id;

  std::vector<ResultModel> both = models;
  for (auto& m : faster) both.push_back(m);
  Result<CalibrationResult> r = Calibrate(stack, both, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->points.size(), 16u);
  for (const auto& p : r->points) {
    EXPECT_GT(p.cross_gpu_predicted, 0) << p.id;
    EXPECT_NEAR(p.cross_gpu_error, 0.0, 0.05) << p.id;
    EXPECT_EQ(p.hardware, p.id.ends_with("-fast") ? "tiny-fast" : testing::TinyConfig().hardware.name) << p.id;
  }

  o.cross_gpu = false;
  std::vector<ResultModel> off = both;
  Result<CalibrationResult> without = Calibrate(stack, off, o);
  ASSERT_TRUE(without.ok());
  for (const auto& p : without->points) EXPECT_EQ(p.cross_gpu_predicted, 0) << p.id;
}

// A parameter the points cannot identify is not fitted: it keeps its value
// and is reported with the reason; a fit with nothing identified fails naming
// each candidate; an unknown parameter name is an error naming it.
TEST(CalibrationTest, UnseenParameterStaysAtItsPriorAndBadNamesFail) {
  StackParams truth = testing::IdealParams();
  truth.kernel_us = 3;
  truth.alltoall_us = 20;
  truth.moe_kernel_us = 7;
  std::vector<ResultModel> models = Measure(truth, truth);
  Stack stack;
  stack.params = stack.priors = truth;
  CalibrationOptions o;
  // A dense model on one GPU has no all-to-all and no MoE block.
  o.free = {"overhead.kernel_us", "collectives.alltoall_us", "overhead.moe_kernel_us"};
  o.leave_one_out = false;
  Result<CalibrationResult> r = Calibrate(stack, models, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->free, std::vector<std::string>{"overhead.kernel_us"});
  ASSERT_EQ(r->not_identified.size(), 2u);
  EXPECT_EQ(r->not_identified[0].first, "collectives.alltoall_us");
  EXPECT_NE(r->not_identified[0].second.find("expert parallelism"), std::string::npos) << r->not_identified[0].second;
  EXPECT_EQ(r->not_identified[1].first, "overhead.moe_kernel_us");
  EXPECT_NE(r->not_identified[1].second.find("mixture-of-experts"), std::string::npos);
  EXPECT_NEAR(r->params.alltoall_us, truth.alltoall_us, 1e-9);
  EXPECT_NEAR(r->params.moe_kernel_us, truth.moe_kernel_us, 1e-9);
  EXPECT_NEAR(r->params.kernel_us, truth.kernel_us, 0.05);
  o.free = {"collectives.alltoall_us"};
  Result<CalibrationResult> none = Calibrate(stack, models, o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("collectives.alltoall_us: no point is of deployments with expert parallelism"),
            std::string::npos) << none.status().ToString();
  o.free = {"no.such.parameter"};
  Result<CalibrationResult> bad = Calibrate(stack, models, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no.such.parameter"), std::string::npos);
}

// A name listed twice is blamed on where the list came from: --fit, or the
// stack file's calibration.free when --fit was not given.
TEST(CalibrationTest, ARepeatedParameterNamesTheListItCameFrom) {
  StackParams truth = testing::IdealParams();
  std::vector<ResultModel> models = Measure(truth, truth);
  Stack stack;
  stack.file = "data/stacks/x@1.json";
  stack.params = stack.priors = truth;
  CalibrationOptions o;
  o.leave_one_out = false;
  o.free = {"overhead.kernel_us", "overhead.kernel_us"};
  Result<CalibrationResult> flag = Calibrate(stack, models, o);
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.status().message(), "--fit: parameter 'overhead.kernel_us' listed twice; name each parameter once");
  o.free.clear();
  stack.free_params = {"overhead.kernel_us", "overhead.kernel_us"};
  Result<CalibrationResult> file = Calibrate(stack, models, o);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), "data/stacks/x@1.json: calibration.free: parameter 'overhead.kernel_us' listed "
                                     "twice; name each parameter once");
  EXPECT_EQ(file.status().message().find("--fit"), std::string::npos);
}

// A parameter an earlier fit set and this one does not fit goes back to its
// prior in the file written (WriteCalibratedStack); the fit runs with that
// value too, so each recorded prediction is what the written parameters give.
TEST(CalibrationTest, AnEarlierFitThisOneDropsIsWithdrawnBeforeTheFit) {
  StackParams truth = testing::IdealParams();
  truth.gemm_bf16 = Curve{0.6, 48};
  truth.kernel_us = 3;
  StackParams start = truth;
  start.gemm_bf16 = Curve{0.9, 150};
  start.kernel_us = 9;  // an earlier fit's value; its prior is the truth's 3
  std::vector<ResultModel> models = Measure(truth, start);
  Stack stack;
  stack.params = start;
  stack.priors = start;
  stack.priors.kernel_us = 3;
  stack.origins["overhead.kernel_us"].kind = ParamOrigin::Kind::kFitted;
  CalibrationOptions o;
  o.free = {"gemm.bf16.max", "gemm.bf16.half"};
  o.leave_one_out = false;
  Result<CalibrationResult> r = Calibrate(stack, models, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->params.kernel_us, 3);
  // With the floor back at the truth's, the fit finds the truth's GEMM curve.
  EXPECT_NEAR(r->params.gemm_bf16.max / 0.6, 1.0, 0.02);
  ASSERT_EQ(r->points.size(), models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    Result<double> fresh = models[i].Simulate(r->params);
    ASSERT_TRUE(fresh.ok());
    EXPECT_NEAR(r->points[i].predicted / *fresh, 1.0, 1e-6) << r->points[i].id;
  }
}

// The runtime reserve sets how many requests the KV cache holds, which no
// replay sees (a schedule parameter). Closed loops simulated with a known
// reserve that leaves the cache room for about 24 requests of 1,024 tokens:
// three of them bind, two do not. From a prior of 0 GB (the cache holds every
// run) the fit recovers the cache within one request's tokens and the
// per-kernel floor within 2 %; each point's leave-one-out fit, which still has
// another point of its kind, predicts it within 5 %.
TEST(CalibrationTest, RecoversARuntimeReserveFromRunsWhoseKvCacheBinds) {
  StackParams truth = testing::IdealParams();
  truth.kernel_us = 3;
  const SimConfig empty = Config(truth);  // reserve 0
  const double per_token = empty.memory.kv_bytes_per_token;
  truth.runtime_reserve_gb = (empty.memory.kv - 24 * 1024 * per_token) / 1e9;
  StackParams start = truth;
  start.runtime_reserve_gb = 0;
  start.kernel_us = 9;
  struct Run {
    int64_t concurrency;
    int32_t out;
  };
  std::vector<ResultModel> models;
  for (const Run run : {Run{4, 512}, Run{8, 512}, Run{48, 512}, Run{64, 256}, Run{96, 512}}) {
    PublishedResult r;
    r.id = "closed-loop-c" + std::to_string(run.concurrency) + "-out" + std::to_string(run.out);
    r.scenario = Scenario::kClosedLoop;
    r.concurrency = run.concurrency;
    r.value = 1;
    ResultModel truth_model = ResultModel::FromRun(r, Config(truth), Requests(240, 512, run.out));
    Result<double> measured = truth_model.Simulate(truth);
    ASSERT_TRUE(measured.ok()) << measured.status().ToString();
    r.value = *measured;
    models.push_back(ResultModel::FromRun(r, Config(start), Requests(240, 512, run.out)));
  }
  // The prior's cache holds the largest run whole: the prediction is high.
  ResultModel wide = models.back();
  ASSERT_TRUE(wide.Simulate(start).ok());
  Stack stack;
  stack.name = "synthetic";
  stack.version = "0";
  stack.params = stack.priors = start;
  CalibrationOptions o;
  o.free = {"overhead.kernel_us", "memory.runtime_reserve_gb"};
  o.threads = 2;
  Result<CalibrationResult> r = Calibrate(stack, models, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->free, o.free);
  const double tokens_off = (r->params.runtime_reserve_gb - truth.runtime_reserve_gb) * 1e9 / per_token;
  EXPECT_LE(std::fabs(tokens_off), 1024) << r->params.runtime_reserve_gb << " GB against " << truth.runtime_reserve_gb;
  EXPECT_NEAR(r->params.kernel_us / 3, 1.0, 0.02);
  ASSERT_EQ(r->points.size(), 5u);
  EXPECT_GT(wide.Replay(start) / r->points.back().measured, 1.1);
  for (const auto& p : r->points) {
    EXPECT_NEAR(p.error, 0.0, 0.01) << p.id;
    EXPECT_NEAR(p.loo_error, 0.0, 0.05) << p.id;
  }
  // With only the run that never fills the cache, the reserve is not
  // identified: it keeps its prior, and the reason is given.
  std::vector<ResultModel> small = {models.front()};
  o.leave_one_out = false;
  Result<CalibrationResult> unseen = Calibrate(stack, small, o);
  ASSERT_TRUE(unseen.ok()) << unseen.status().ToString();
  EXPECT_EQ(unseen->free, std::vector<std::string>{"overhead.kernel_us"});
  ASSERT_EQ(unseen->not_identified.size(), 1u);
  EXPECT_EQ(unseen->not_identified[0].first, "memory.runtime_reserve_gb");
  EXPECT_NE(unseen->not_identified[0].second.find("moves no prediction"), std::string::npos);
  EXPECT_EQ(unseen->params.runtime_reserve_gb, 0);
}

// The fit re-costs recorded steps instead of simulating again: for a closed
// loop and a batch the replay under new parameters equals a fresh simulation.
TEST(CalibrationTest, ReplayEqualsAFreshSimulation) {
  StackParams a = testing::IdealParams();
  a.kernel_us = 2;
  StackParams b = a;
  b.gemm_bf16 = Curve{0.5, 100};
  b.kernel_us = 7;
  b.step_us = 40;
  for (Scenario s : {Scenario::kBatch, Scenario::kClosedLoop}) {
    PublishedResult r;
    r.id = "x";
    r.scenario = s;
    r.concurrency = 8;
    r.value = 1;
    ResultModel m = ResultModel::FromRun(r, Config(a), Requests(40, 300, 50));
    ASSERT_TRUE(m.Simulate(a).ok());
    const double replayed = m.Replay(b);
    Result<double> fresh = m.Simulate(b);
    ASSERT_TRUE(fresh.ok());
    EXPECT_NEAR(replayed / *fresh, 1.0, 1e-9) << ScenarioName(s);
    EXPECT_TRUE(m.exact_replay());
  }
}

}  // namespace
}  // namespace frontier::sim
