#include "sim/band.h"

#include <gtest/gtest.h>

namespace frontier::sim {
namespace {

CalibratedError E(const std::string& cls, const std::string& dep, const std::string& vendor, double loo,
                  const std::string& precision = "fp8", const std::string& hw = "h200") {
  return {cls + dep + vendor + std::to_string(loo), {cls, dep, vendor, precision, hw}, loo};
}

// The band is the 90th percentile (nearest rank) of |LOO error| of the
// narrowest class with at least five results.
TEST(BandTest, NinetiethPercentileOfTheNarrowestClassWithFiveResults) {
  std::vector<CalibratedError> errors;
  // MLA / tp / nvidia: ten results, |errors| 0.01 .. 0.10: rank ceil(9) = 9 -> 0.09.
  for (int i = 1; i <= 10; ++i) errors.push_back(E("MLA", "tp", "nvidia", (i % 2 ? -0.01 : 0.01) * i));
  // dense / tp / amd: three results only -> dense / amd has the same three -> dense has five.
  for (double v : {0.02, -0.20, 0.05}) errors.push_back(E("dense", "tp", "amd", v, "fp8", "mi300x"));
  for (double v : {0.30, 0.01}) errors.push_back(E("dense", "tp", "nvidia", v));
  BandTable t = BandTable::FromErrors(errors);

  PredictionBand mla = t.For({"MLA", "tp", "nvidia", "fp8", "h200"});
  EXPECT_DOUBLE_EQ(mla.half_width, 0.09);
  EXPECT_EQ(mla.points, 10);
  EXPECT_EQ(mla.basis, "MLA / tp / nvidia");
  EXPECT_TRUE(mla.flags.empty());

  // dense: five results {0.02, 0.20, 0.05, 0.30, 0.01}: rank ceil(4.5) = 5 -> 0.30.
  PredictionBand dense = t.For({"dense", "tp", "amd", "fp8", "mi355x"});
  EXPECT_DOUBLE_EQ(dense.half_width, 0.30);
  EXPECT_EQ(dense.points, 5);
  EXPECT_EQ(dense.basis, "dense");
  ASSERT_EQ(dense.flags.size(), 1u);
  EXPECT_EQ(dense.flags[0], "GPU never calibrated (mi355x)");

  // MoE has no result at all: every calibrated result (15).
  PredictionBand moe = t.For({"MoE", "attn-dp+ep", "amd", "fp4", "mi355x"});
  EXPECT_EQ(moe.points, 15);
  EXPECT_EQ(moe.basis, "all classes");
  EXPECT_DOUBLE_EQ(moe.half_width, 0.20);  // rank ceil(13.5) = 14 of 15 sorted |errors|
  ASSERT_EQ(moe.flags.size(), 3u);
  EXPECT_EQ(moe.flags[1], "fp4 never calibrated on amd");
  EXPECT_EQ(moe.flags[2], "attn-dp+ep never calibrated on amd");
}

TEST(BandTest, NoErrorsNoBand) {
  PredictionBand b = BandTable::FromErrors({}).For({"dense", "tp", "nvidia", "fp8", "h100-sxm"});
  EXPECT_EQ(b.points, 0);
  EXPECT_EQ(b.Describe(), "no band (no calibrated result)");
}

TEST(BandTest, DeploymentKinds) {
  EXPECT_EQ(DeploymentKind(false, 1, false), "tp");
  EXPECT_EQ(DeploymentKind(true, 8, false), "attn-dp+ep");
  EXPECT_EQ(DeploymentKind(false, 8, false), "ep");
  EXPECT_EQ(DeploymentKind(true, 8, true), "disagg");
}

}  // namespace
}  // namespace frontier::sim
