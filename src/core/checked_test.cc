#include "core/checked.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace frontier {
namespace {

TEST(Checked, SumsDifferencesAndProductsThatFit) {
  EXPECT_EQ(CheckedAdd(1, 2), 3);
  EXPECT_EQ(CheckedAdd(kInt64Max - 1, 1), kInt64Max);
  EXPECT_EQ(CheckedSub(kInt64Min + 1, 1), kInt64Min);
  EXPECT_EQ(CheckedMul(3'037'000'499, 3'037'000'499), int64_t{3'037'000'499} * 3'037'000'499);
  EXPECT_EQ(CheckedMul(-1, kInt64Max), -kInt64Max);
}

TEST(Checked, OverflowIsNulloptNeverWrapped) {
  EXPECT_FALSE(CheckedAdd(kInt64Max, 1));
  EXPECT_FALSE(CheckedAdd(kInt64Min, -1));
  EXPECT_FALSE(CheckedSub(kInt64Max, -1));
  EXPECT_FALSE(CheckedSub(0, kInt64Min));
  EXPECT_FALSE(CheckedMul(kInt64Max, 2));
  EXPECT_FALSE(CheckedMul(-1, kInt64Min));
  EXPECT_FALSE(CheckedMul(3'037'000'500, 3'037'000'500));
}

TEST(Checked, SaturatingPinsAtTheEndTheExactResultIsPast) {
  EXPECT_EQ(SaturatingAdd(kInt64Max, 5), kInt64Max);
  EXPECT_EQ(SaturatingAdd(kInt64Min, -5), kInt64Min);
  EXPECT_EQ(SaturatingSub(kInt64Max, kInt64Min), kInt64Max);  // INT64_MAX end minus a negative start
  EXPECT_EQ(SaturatingSub(kInt64Min, 1), kInt64Min);
  EXPECT_EQ(SaturatingMul(kInt64Max, 3), kInt64Max);
  EXPECT_EQ(SaturatingMul(kInt64Max, -3), kInt64Min);
  EXPECT_EQ(SaturatingMul(kInt64Min, -1), kInt64Max);
  EXPECT_EQ(SaturatingAdd(40, 2), 42);
}

TEST(Checked, CeilDivNeedsNoSumThatWraps) {
  EXPECT_EQ(CeilDiv(0, 7), 0);
  EXPECT_EQ(CeilDiv(7, 7), 1);
  EXPECT_EQ(CeilDiv(8, 7), 2);
  EXPECT_EQ(CeilDiv(kInt64Max, 1), kInt64Max);
  EXPECT_EQ(CeilDiv(kInt64Max, kInt64Max - 1), 2);
}

TEST(Checked, DoublesOutsideInt64AreRefused) {
  EXPECT_EQ(DoubleToInt64(1e9), 1'000'000'000);
  EXPECT_EQ(DoubleToInt64(-3.7), -3);
  EXPECT_FALSE(DoubleToInt64(9223372036854775808.0));
  EXPECT_FALSE(DoubleToInt64(1e308));
  EXPECT_FALSE(DoubleToInt64(-1e308));
  EXPECT_FALSE(DoubleToInt64(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(DoubleToInt64(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(DoubleToInt64(1e12, 0, 10'000'000));
  EXPECT_EQ(DoubleToInt64(1e7, 0, 10'000'000), 10'000'000);
}

TEST(Checked, SecondsToNanosNamesTheInputAndRange) {
  EXPECT_EQ(*SecondsToNanosChecked("--min-duration", 1.5, 1e9), 1'500'000'000);
  EXPECT_EQ(*SecondsToNanosChecked("--min-duration", 1e9, 1e9), int64_t{1'000'000'000} * 1'000'000'000);
  for (double bad : {-1.0, 1e9 + 1, 1e308, std::nan(""), std::numeric_limits<double>::infinity()}) {
    Result<int64_t> r = SecondsToNanosChecked("--min-duration", bad, 1e9);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("--min-duration must be a number of seconds in [0, "), std::string::npos);
  }
  EXPECT_FALSE(SecondsToNanosChecked("x", 1e10, 1e11).ok());  // past what int64 nanoseconds hold
}

}  // namespace
}  // namespace frontier
