#include "power/rocm_smi.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "power/integrate.h"
#include "power/nvml.h"
#include "power/open.h"
#include "util/test_paths.h"

namespace frontier::power {
namespace {

class RocmSmiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    script_ = std::filesystem::temp_directory_path() / ("frontier_fake_rsmi_" + std::to_string(::getpid()));
    ::setenv("FAKE_RSMI_SCRIPT", script_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FAKE_RSMI_SCRIPT");
    ::unsetenv("FAKE_RSMI_NO_ENERGY");
    std::filesystem::remove(script_);
  }
  void Set(const std::string& lines) { std::ofstream(script_) << lines; }
  std::filesystem::path script_;
};

TEST_F(RocmSmiTest, CountersInTheirResolutionAndPowerInMicrowatts) {
  Set("1000 550000000\n5000 300000000\n");
  auto s = OpenRocmSmi(testing_util::TestPath("FRONTIER_FAKE_RSMI"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->Name(), "amdsmi");
  ASSERT_EQ((*s)->Devices().size(), 2u);
  EXPECT_EQ((*s)->Devices()[1], "gpu1 Fake MI300X 1");
  PowerReading r0, r1;
  ASSERT_TRUE((*s)->Read(&r0).ok());
  Set("1000001000 700000000\n5000 300000000\n");  // 10^9 counts of 15.3 µJ on gpu0
  ASSERT_TRUE((*s)->Read(&r1).ok());
  const double uj = static_cast<double>(15.3f);
  EXPECT_DOUBLE_EQ(r0.energy_j[0], 0);
  EXPECT_DOUBLE_EQ(r1.energy_j[0], 1e9 * uj / 1e6);  // 15300 J
  EXPECT_DOUBLE_EQ(r1.energy_j[1], 0);
  EXPECT_DOUBLE_EQ(r1.power_w[0], 700);
  r0.t_ns = 0;
  r1.t_ns = 30 * kNanosPerSecond;
  auto e = Integrate(std::vector<PowerReading>{r0, r1}, (*s)->Devices(), 0, 30 * kNanosPerSecond);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_DOUBLE_EQ(e->joules, 1e9 * uj / 1e6);
  EXPECT_DOUBLE_EQ(e->devices[0].mean_w, 1e9 * uj / 1e6 / 30);
}

TEST_F(RocmSmiTest, PowerAloneWithoutCounters) {
  Set("0 250000000\n");
  ::setenv("FAKE_RSMI_NO_ENERGY", "1", 1);
  auto s = OpenRocmSmi(testing_util::TestPath("FRONTIER_FAKE_RSMI"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  PowerReading r;
  ASSERT_TRUE((*s)->Read(&r).ok());
  EXPECT_TRUE(std::isnan(r.energy_j[0]));
  EXPECT_DOUBLE_EQ(r.power_w[0], 250);
}

TEST_F(RocmSmiTest, ByNameAndThroughTheEnvironment) {
  Set("7 1000000\n");
  ::setenv("FRONTIER_ROCM_SMI_LIB", testing_util::TestPath("FRONTIER_FAKE_RSMI").c_str(), 1);
  PowerOptions o;
  o.kind = PowerKind::kAmdSmi;
  auto p = OpenPowerSource(o);
  ::unsetenv("FRONTIER_ROCM_SMI_LIB");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_NE(p->source, nullptr);
  EXPECT_EQ(p->source->Name(), "amdsmi");
  auto missing = OpenRocmSmi("/nonexistent/librocm_smi64.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("FRONTIER_ROCM_SMI_LIB"), std::string::npos);
}

// A library that loads but is the other vendor's: every entry point the
// source cannot work without is named, with what the library should be.
TEST_F(RocmSmiTest, EachVendorNamesTheEntryPointsTheOthersLibraryLacks) {
  const std::string nvml_lib = testing_util::TestPath("FRONTIER_FAKE_NVML");
  auto rsmi = OpenRocmSmi(nvml_lib);
  ASSERT_FALSE(rsmi.ok());
  EXPECT_EQ(rsmi.status().message(),
            "amdsmi: the library lacks rsmi_init, rsmi_shut_down, rsmi_num_monitor_devices or "
            "rsmi_dev_power_ave_get; is it ROCm's librocm_smi64?");
  const std::string rsmi_lib = testing_util::TestPath("FRONTIER_FAKE_RSMI");
  auto nvml = OpenNvml(rsmi_lib);
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.status().message(),
            "nvml: " + rsmi_lib +
                " lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2 or "
                "nvmlDeviceGetPowerUsage; is it NVIDIA's libnvidia-ml?");
}

}  // namespace
}  // namespace frontier::power
