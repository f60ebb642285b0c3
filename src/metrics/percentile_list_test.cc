// percentile_list_test.cc: the one parser of a --percentiles value.
#include "metrics/percentile_list.h"

#include <gtest/gtest.h>

namespace frontier::metrics {
namespace {

TEST(ParsePercentileList, ReadsTheListInOrder) {
  Result<std::vector<double>> p = ParsePercentileList("99.9,50,0,100", "--percentiles");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*p, (std::vector<double>{99.9, 50, 0, 100}));
}

TEST(ParsePercentileList, NamesTheFlagForABadValue) {
  for (const char* bad : {"", ",50", "50,,90", "50,x", "101", "-1", "50 ",
                          // all of an item, as every number (core/parse.h): no blank before it, no hex
                          "50, 90", " 50", "0x10"}) {
    Result<std::vector<double>> p = ParsePercentileList(bad, "--percentiles");
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(p.status().message().rfind("--percentiles must", 0), 0u) << p.status().message();
  }
}

TEST(ParsePercentileList, TakesAtMostOneHundred) {
  std::string hundred = "1";
  for (int i = 1; i < 100; ++i) hundred += ",1";
  EXPECT_TRUE(ParsePercentileList(hundred, "--p").ok());
  EXPECT_FALSE(ParsePercentileList(hundred + ",1", "--p").ok());
}

}  // namespace
}  // namespace frontier::metrics
