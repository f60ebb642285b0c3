#include "power/nvml.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "power/integrate.h"
#include "power/open.h"
#include "power/sampler.h"
#include "util/test_paths.h"

namespace frontier::power {
namespace {

// Sets environment variables for one test and restores them after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

class NvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    time_file_ = std::filesystem::temp_directory_path() / ("frontier_fake_nvml_t_" + std::to_string(::getpid()));
    SetTime(0);
  }
  void TearDown() override { std::filesystem::remove(time_file_); }
  void SetTime(double s) { std::ofstream(time_file_) << s << "\n"; }
  std::filesystem::path time_file_;
};

TEST_F(NvmlTest, ReadsTheCountersOfEveryGpu) {
  ScopedEnv t("FAKE_NVML_TIME_FILE", time_file_.string());
  ScopedEnv w("FAKE_NVML_WATTS", "100,250,700");
  auto s = OpenNvml(testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->Name(), "nvml");
  ASSERT_EQ((*s)->Devices().size(), 3u);
  EXPECT_EQ((*s)->Devices()[2], "gpu2 Fake GPU 2");
  PowerReading r0, r1;
  ASSERT_TRUE((*s)->Read(&r0).ok());
  SetTime(2.5);
  ASSERT_TRUE((*s)->Read(&r1).ok());
  // 2.5 s at 100, 250 and 700 W, from the counter (mJ), relative to the open.
  EXPECT_DOUBLE_EQ(r0.energy_j[0], 0);
  EXPECT_DOUBLE_EQ(r1.energy_j[0], 250);
  EXPECT_DOUBLE_EQ(r1.energy_j[1], 625);
  EXPECT_DOUBLE_EQ(r1.energy_j[2], 1750);
  EXPECT_DOUBLE_EQ(r1.power_w[2], 700);
  // Stamped 0 s and 2.5 s, the window [0.5 s, 2 s] holds 1.5 s at 1050 W.
  r0.t_ns = 0;
  r1.t_ns = 2500 * kNanosPerMilli;
  auto e = Integrate(std::vector<PowerReading>{r0, r1}, (*s)->Devices(), 500 * kNanosPerMilli, 2 * kNanosPerSecond);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->method, "energy counter");
  EXPECT_DOUBLE_EQ(e->joules, 1575);
  EXPECT_DOUBLE_EQ(e->mean_w, 1050);
  EXPECT_DOUBLE_EQ(e->peak_w, 0);  // no reading inside the window: no peak was seen
}

TEST_F(NvmlTest, WithoutEnergyCountersPowerIsRead) {
  ScopedEnv w("FAKE_NVML_WATTS", "300");
  ScopedEnv n("FAKE_NVML_NO_ENERGY", "1");
  auto s = OpenNvml(testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  PowerReading r;
  ASSERT_TRUE((*s)->Read(&r).ok());
  EXPECT_TRUE(std::isnan(r.energy_j[0]));
  EXPECT_DOUBLE_EQ(r.power_w[0], 300);
}

TEST_F(NvmlTest, TheSamplerIntegratesConstantPowerExactly) {
  // Power alone (no counter), constant: the trapezoids give W x window
  // whatever the readings' times, so the figure is exact on a busy machine.
  ScopedEnv w("FAKE_NVML_WATTS", "120,80");
  ScopedEnv n("FAKE_NVML_NO_ENERGY", "1");
  auto s = OpenNvml(testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  PowerSampler sampler(s->get(), 5 * kNanosPerMilli);
  sampler.Start();
  const Nanos a = SteadyClock::MonotonicNow();
  while (SteadyClock::MonotonicNow() - a < 50 * kNanosPerMilli) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Nanos b = SteadyClock::MonotonicNow();
  PowerSampler::Series series = sampler.Stop();
  EXPECT_EQ(series.failures, 0);
  ASSERT_GE(series.readings.size(), 2u);
  auto e = Integrate(series.readings, (*s)->Devices(), a, b);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->method, "power integrated");
  const double window = NanosToSeconds(b - a);
  EXPECT_NEAR(e->joules, 200 * window, 1e-9);
  EXPECT_NEAR(e->devices[0].joules, 120 * window, 1e-9);
  EXPECT_NEAR(e->mean_w, 200, 1e-9);
  EXPECT_DOUBLE_EQ(e->peak_w, e->samples > 0 ? 200 : 0);
}

TEST_F(NvmlTest, FailuresNameTheLibraryAndTheFix) {
  auto missing = OpenNvml("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
  EXPECT_NE(missing.status().message().find("FRONTIER_NVML_LIB"), std::string::npos);
  ScopedEnv f("FAKE_NVML_INIT_FAIL", "1");
  auto init = OpenNvml(testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ASSERT_FALSE(init.ok());
  EXPECT_NE(init.status().message().find("Driver Not Loaded"), std::string::npos) << init.status().message();
}

TEST_F(NvmlTest, AutoPicksNvmlThroughTheEnvironment) {
  ScopedEnv lib("FRONTIER_NVML_LIB", testing_util::TestPath("FRONTIER_FAKE_NVML"));
  PowerOptions o;
  auto p = OpenPowerSource(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_NE(p->source, nullptr);
  EXPECT_EQ(p->source->Name(), "nvml");
  o.kind = PowerKind::kOff;
  p = OpenPowerSource(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, nullptr);
}

TEST_F(NvmlTest, AutoWithoutAnySourceSaysTdpBound) {
  ScopedEnv lib("FRONTIER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
  ScopedEnv amd("FRONTIER_ROCM_SMI_LIB", "/nonexistent/librocm_smi64.so");
  auto p = OpenPowerSource(PowerOptions{});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, nullptr);
  EXPECT_NE(p->note.find("no power source"), std::string::npos) << p->note;
  PowerOptions named;
  named.kind = PowerKind::kNvml;
  auto n = OpenPowerSource(named);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message().rfind("--power nvml: ", 0), 0u) << n.status().message();
}

}  // namespace
}  // namespace frontier::power
