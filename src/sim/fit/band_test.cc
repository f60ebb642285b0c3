#include "sim/fit/band.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

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

Hardware Gpu(const std::string& name, double fp8_tflops, double hbm_tbps) {
  Hardware h;
  h.name = name;
  h.vendor = "nvidia";
  h.bf16_tflops = fp8_tflops / 2;
  h.fp8_tflops = fp8_tflops;
  h.hbm_tbps = hbm_tbps;
  return h;
}

// A cross-GPU error counts toward the transfer rate only where the refit
// without the GPU still saw the result's model class on another GPU: its
// distance is to the nearest such GPU.
TEST(BandTest, ACrossGpuErrorMeasuresTransferOnlyFromAGpuOfItsClass) {
  std::map<std::string, Hardware> gpus{{"h200", Gpu("h200", 2000, 4.8)},
                                       {"h200-nvl", Gpu("h200-nvl", 1000, 4.8)},
                                       {"gh200", Gpu("gh200", 2000, 4.9)}};
  std::vector<CalibratedError> fit;
  for (const char* hw : {"h200", "h200-nvl", "gh200"}) {
    CalibratedError e = E("dense", "tp", "nvidia", 0.05, "fp8", hw);
    e.key.peak_tflops = gpus.at(hw).fp8_tflops;
    e.key.hbm_tbps = gpus.at(hw).hbm_tbps;
    e.cross_gpu_error = 0.1;
    fit.push_back(e);
  }
  CalibratedError moe = E("MoE", "tp", "nvidia", 0.05, "fp8", "h200");  // MoE on h200 only
  moe.key.peak_tflops = 2000;
  moe.key.hbm_tbps = 4.8;
  moe.cross_gpu_error = 0.4;
  fit.push_back(moe);
  ASSERT_TRUE(AssignCrossDistances(fit, gpus).ok());
  EXPECT_NEAR(fit[0].cross_distance, std::log(4.9 / 4.8), 1e-12);  // h200: nearest is gh200
  EXPECT_NEAR(fit[1].cross_distance, std::log(2.0), 1e-12);        // h200-nvl: h200 or gh200
  EXPECT_NEAR(fit[2].cross_distance, std::log(4.9 / 4.8), 1e-12);
  EXPECT_EQ(fit[3].cross_distance, 0);  // no other GPU ran MoE: not a transfer measurement
}

// On a GPU never calibrated, the band adds rate x distance in squares, the
// rate measured by cross-GPU refits on the calibration GPUs (hand-computed).
TEST(BandTest, ANeverCalibratedGpuAddsTheTransferPartMeasuredAcrossCalibrationGpus) {
  // Two calibration GPUs, peaks 1000 and 2000, bandwidth 2 and 3 TB/s:
  // distance max(ln 2, ln 1.5) = ln 2.
  const Hardware a = Gpu("h100-sxm", 1000, 2.0), b = Gpu("h200", 2000, 3.0);
  const double d_ab = std::log(2.0);
  std::vector<CalibratedError> errors;
  // Five results with cross-GPU errors; their excess over LOO:
  // sqrt(0.10^2 - 0.06^2) = 0.08, sqrt(0.05^2 - 0.03^2) = 0.04, and three
  // whose leave-one-out error is larger than the cross-GPU one (excess 0).
  const double cross[] = {0.10, -0.05, 0.01, 0.02, -0.01}, loo[] = {0.06, -0.03, 0.05, 0.04, 0.03};
  for (int i = 0; i < 5; ++i) {
    CalibratedError e = E("dense", "tp", "nvidia", loo[i], "fp8", i % 2 ? "h200" : "h100-sxm");
    e.cross_gpu_error = cross[i];
    e.cross_distance = d_ab;
    errors.push_back(e);
  }
  BandTable t = BandTable::FromErrors(errors, {a, b});
  const TransferRate rate = t.Transfer("nvidia");
  EXPECT_EQ(rate.points, 5);
  EXPECT_EQ(rate.basis, "nvidia");
  EXPECT_NEAR(rate.rate, 0.08 / d_ab, 1e-9);  // rank ceil(4.5) = 5 of {0, 0, 0, 0.04, 0.08} / d

  // A calibrated GPU: the class part alone (|LOO| {0.03, 0.03, 0.04, 0.05, 0.06}, 90th: 0.06).
  PredictionBand on_b = t.For({"dense", "tp", "nvidia", "fp8", "h200", 2000, 3.0});
  EXPECT_NEAR(on_b.half_width, 0.06, 1e-12);

  // A new GPU with twice h200's peak and 4 TB/s: distance to h200
  // max(ln 2, ln 4/3) = ln 2, nearer than to h100-sxm (max(ln 4, ln 2)).
  PredictionBand on_new = t.For({"dense", "tp", "nvidia", "fp8", "new-gpu", 4000, 4.0});
  const double transfer = 0.08 / d_ab * std::log(2.0);
  EXPECT_NEAR(on_new.half_width, std::sqrt(0.06 * 0.06 + transfer * transfer), 1e-9);
  EXPECT_NE(on_new.basis.find("transfer"), std::string::npos) << on_new.basis;
  EXPECT_NE(on_new.basis.find("from h200"), std::string::npos) << on_new.basis;
  // Farther from every calibrated GPU: a wider band.
  PredictionBand farther = t.For({"dense", "tp", "nvidia", "fp8", "new-gpu", 8000, 4.0});
  EXPECT_GT(farther.half_width, on_new.half_width);

  // SpecDistance: the peak at the deployment's format (no FP4 on either: FP8's).
  EXPECT_NEAR(SpecDistance(a, b, Precision::kFp4), d_ab, 1e-12);
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
