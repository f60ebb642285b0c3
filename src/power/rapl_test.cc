#include "power/rapl.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace frontier::power {
namespace {

namespace fs = std::filesystem;

class RaplTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("frontier_rapl_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    Zone("intel-rapl:0", "package-0", 262143328850, 262143000000);  // 328.85 J before the wrap
    Zone("intel-rapl:0:0", "core", 262143328850, 5);                // inside the package: left out
    Zone("intel-rapl:0:1", "dram", 65712999613, 1000000);
    Zone("intel-rapl:1", "package-1", 262143328850, 0);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Zone(const std::string& dir, const std::string& name, int64_t max, int64_t energy) {
    fs::create_directories(root_ / dir);
    std::ofstream(root_ / dir / "name") << name << "\n";
    std::ofstream(root_ / dir / "max_energy_range_uj") << max << "\n";
    Set(dir, energy);
  }
  void Set(const std::string& dir, int64_t energy) { std::ofstream(root_ / dir / "energy_uj") << energy << "\n"; }
  fs::path root_;
};

TEST_F(RaplTest, CountsPackagesAndDramAcrossAWrap) {
  auto s = OpenRapl(root_.string());
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto& names = (*s)->Devices();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "package-0 (intel-rapl:0)");
  EXPECT_EQ(names[1], "dram (intel-rapl:0:1)");
  EXPECT_EQ(names[2], "package-1 (intel-rapl:1)");
  PowerReading r0, r1, r2;
  ASSERT_TRUE((*s)->Read(&r0).ok());
  EXPECT_DOUBLE_EQ(r0.energy_j[0], 0);
  EXPECT_TRUE(std::isnan(r0.power_w[0]));
  // package-0 wraps: 262143000000 -> max 262143328850 -> 0 -> 171150: 328850 + 171150 µJ = 0.5 J.
  Set("intel-rapl:0", 171150);
  Set("intel-rapl:0:1", 3500000);   // +2.5 J
  Set("intel-rapl:1", 120000000);   // +120 J
  ASSERT_TRUE((*s)->Read(&r1).ok());
  EXPECT_DOUBLE_EQ(r1.energy_j[0], 0.5);
  EXPECT_DOUBLE_EQ(r1.energy_j[1], 2.5);
  EXPECT_DOUBLE_EQ(r1.energy_j[2], 120);
  Set("intel-rapl:0", 1171150);     // +1 J after the wrap
  ASSERT_TRUE((*s)->Read(&r2).ok());
  EXPECT_DOUBLE_EQ(r2.energy_j[0], 1.5);
}

TEST_F(RaplTest, ARootWithoutZonesSaysWhereItLooked) {
  auto s = OpenRapl((root_ / "empty").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("empty"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("FRONTIER_POWERCAP_ROOT"), std::string::npos);
}

TEST_F(RaplTest, TheEnvironmentNamesTheRoot) {
  ::setenv("FRONTIER_POWERCAP_ROOT", root_.c_str(), 1);
  auto s = OpenRapl("");
  ::unsetenv("FRONTIER_POWERCAP_ROOT");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->Devices().size(), 3u);
}

TEST_F(RaplTest, AnUnreadableCounterIsAnError) {
  Set("intel-rapl:1", 0);
  std::ofstream(root_ / "intel-rapl:1" / "energy_uj", std::ios::trunc) << "garbage\n";
  auto s = OpenRapl(root_.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("intel-rapl:1/energy_uj"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace frontier::power
