// The simulator's predictions of published MLPerf results stay within the
// bounds docs/simulate.md states. Stack factors were calibrated on the
// entries marked calibrate=true only; the others are predictions.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/validation.h"

namespace frontier::sim {
namespace {

#ifdef FRONTIER_SIM_REDUCED
constexpr int64_t kOffline = 3000, kServer = 600;
constexpr int kProbes = 6;
// 3,000 Offline samples drain a larger share of the run at low batch: about 10 % below the full set.
constexpr double kCalibrated = 0.12, kOfflinePredicted = 0.15, kServerPredicted = 0.25;
#else
constexpr int64_t kOffline = 12288, kServer = 2000;
constexpr int kProbes = 9;
// Stated bounds (docs/simulate.md): calibration points within 3 %, Offline
// predictions within 8 %, Server predictions within 18 % (the model sustains
// nearly the Offline rate under the Server latency limits; published Server
// throughput is 7-12 % below Offline, so Server predictions run high).
constexpr double kCalibrated = 0.03, kOfflinePredicted = 0.08, kServerPredicted = 0.18;
#endif

TEST(ValidationTest, PredictionsOfPublishedResultsWithinTheStatedBound) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->results.size(), 7u);
  ValidationOptions o;
  o.offline_requests = kOffline;
  o.server_requests = kServer;
  o.server_probes = kProbes;
  int calibrated = 0, predicted = 0;
  for (const auto& r : set->results) {
    Result<Prediction> p = Predict(r, *set, o);
    ASSERT_TRUE(p.ok()) << r.id << ": " << p.status().ToString();
    const double bound = r.calibrate ? kCalibrated : (r.scenario == "offline" ? kOfflinePredicted : kServerPredicted);
    EXPECT_LE(std::fabs(p->error), bound) << r.id << " predicted " << p->output_tokens_per_s << " vs published "
                                          << r.output_tokens_per_s;
    (r.calibrate ? calibrated : predicted)++;
    if (r.scenario == "server") {
      // The latency limits hold at the predicted rate.
      ASSERT_TRUE(p->median_ttft_ms.has_value());
      EXPECT_LT(*p->median_ttft_ms, r.ttft_p99_limit_ms);
      EXPECT_LT(*p->median_tpot_ms, r.tpot_p99_limit_ms);
    }
  }
  EXPECT_EQ(calibrated, 2);  // one per stack
  EXPECT_EQ(predicted, 5);
}

// Published ratios the model must reproduce in direction: H200 over H100
// (more HBM, bandwidth and no TP) and B200 FP4 over H200 FP8.
TEST(ValidationTest, GenerationsRankAsPublished) {
  Result<ValidationSet> set = LoadValidation();
  ASSERT_TRUE(set.ok());
  ValidationOptions o;
  o.offline_requests = kOffline;
  double h100 = 0, h200 = 0, b200 = 0;
  for (const auto& r : set->results) {
    if (r.scenario != "offline") continue;
    Result<Prediction> p = Predict(r, *set, o);
    ASSERT_TRUE(p.ok());
    if (r.hardware == "h100-sxm") h100 = p->output_tokens_per_s;
    if (r.hardware == "h200") h200 = p->output_tokens_per_s;
    if (r.hardware == "b200") b200 = p->output_tokens_per_s;
  }
  EXPECT_GT(h200, 1.15 * h100);  // published 1.28x
  EXPECT_GT(b200, 2.5 * h200);   // published 3.24x
}

}  // namespace
}  // namespace frontier::sim
