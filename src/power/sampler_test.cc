#include "power/sampler.h"

#include <atomic>
#include <cmath>

#include <gtest/gtest.h>

namespace frontier::power {
namespace {

// A source whose n-th reading is n joules, failing every third reading.
class CountingSource final : public PowerSource {
 public:
  std::string Name() const override { return "counting"; }
  const std::vector<std::string>& Devices() const override { return names_; }
  Status Read(PowerReading* r) override {
    const int n = ++calls_;
    if (n % 3 == 0) return Unavailable("reading " + std::to_string(n) + " failed");
    r->energy_j = {static_cast<double>(n)};
    r->power_w = {std::nan("")};
    return Status::Ok();
  }
  std::atomic<int> calls_{0};

 private:
  std::vector<std::string> names_ = {"dev"};
};

TEST(PowerSamplerTest, KeepsReadingsInOrderAndCountsFailures) {
  CountingSource source;
  PowerSampler sampler(&source, kNanosPerMilli);
  sampler.Start();
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (source.calls_ >= 6) break;  // the thread reads on its own
  }
  PowerSampler::Series s = sampler.Stop();
  const int calls = source.calls_;
  EXPECT_EQ(s.failures, calls / 3);
  EXPECT_EQ(static_cast<int>(s.readings.size()), calls - calls / 3);
  EXPECT_NE(s.last_error.find("failed"), std::string::npos);
  for (size_t i = 1; i < s.readings.size(); ++i) {
    EXPECT_GE(s.readings[i].t_ns, s.readings[i - 1].t_ns);
    EXPECT_GT(s.readings[i].energy_j[0], s.readings[i - 1].energy_j[0]);
  }
}

}  // namespace
}  // namespace frontier::power
