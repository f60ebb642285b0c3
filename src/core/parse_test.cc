#include "core/parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace frontier {
namespace {

TEST(ParseInt, AcceptsIntegersInRangeOnly) {
  EXPECT_EQ(*ParseInt("--x", "42", 1, 100), 42);
  EXPECT_EQ(*ParseInt("--x", "+7", 1, 100), 7);
  EXPECT_EQ(*ParseInt("--x", "-3", -5, 5), -3);
  for (const char* bad : {"", "+", "++1", " 1", "1 ", "1.5", "1e3", "0x10", "abc", "-", "101", "0"}) {
    auto r = ParseInt("--x", bad, 1, 100);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), std::string("--x must be an integer in [1, 100], got '") + bad + "'");
  }
}

TEST(ParseInt, NumbersPastInt64AreOutOfRangeNotWrapped) {
  auto r = ParseInt("--baseline", "99999999999999999999999", 1, std::numeric_limits<int64_t>::max());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--baseline must be an integer in [1, 9223372036854775807], got '99999999999999999999999'");
  EXPECT_EQ(*ParseInt("f", "9223372036854775807", 0, std::numeric_limits<int64_t>::max()),
            std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(ParseInt("f", "9223372036854775808", 0, std::numeric_limits<int64_t>::max()).ok());
  EXPECT_FALSE(ParseInt("f", "-9223372036854775809", std::numeric_limits<int64_t>::min(), 0).ok());
}

TEST(ParseNumber, FiniteDecimalsInRange) {
  EXPECT_DOUBLE_EQ(*ParseNumber("r", "0.5", 0, 1), 0.5);
  EXPECT_DOUBLE_EQ(*ParseNumber("r", "1e3", 0, 1e4), 1000);
  EXPECT_DOUBLE_EQ(*ParseNumber("r", "-2", -5, 5), -2);
  for (const char* bad : {"inf", "nan", "-inf", "1e400", "", "0x10", "1,5", "2 ", "fast", "1e30"}) {
    auto r = ParseNumber("mean_ttft_ms", bad, 0, 1e9);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), std::string("mean_ttft_ms must be a number in [0, 1000000000], got '") + bad + "'");
  }
}

TEST(CheckRange, NamesFieldValueAndRange) {
  EXPECT_TRUE(CheckRange("tp", int64_t{8}, 1, 1024).ok());
  EXPECT_EQ(CheckRange("tp", int64_t{0}, 1, 1024).message(), "tp must be an integer in [1, 1024], got 0");
  EXPECT_TRUE(CheckRange("conc", 2.5, 1, 1e6).ok());
  EXPECT_EQ(CheckRange("tput_per_gpu", 1e308, 0, 1e7).message(),
            "tput_per_gpu must be a number in [0, 10000000], got 1e+308");
  EXPECT_FALSE(CheckRange("x", std::nan(""), 0, 1).ok());
  EXPECT_FALSE(CheckRange("x", std::numeric_limits<double>::infinity(), 0, 1e300).ok());
}

TEST(ParseInt, NonPrintableInputIsQuotedSafelyAndShortened) {
  const std::string junk = std::string("\x01\xff", 2) + std::string(100, '9');
  auto r = ParseInt("f", junk, 0, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find('\x01'), std::string::npos);
  EXPECT_NE(r.status().message().find("...'"), std::string::npos);
  EXPECT_LT(r.status().message().size(), 120u);
}

TEST(FormatShortest, WritesTheShortestTextThatReadsBackExactly) {
  EXPECT_EQ(FormatShortest(64), "64");
  EXPECT_EQ(FormatShortest(0.9), "0.9");
  EXPECT_EQ(FormatShortest(0.1 + 0.2), "0.30000000000000004");  // %g would write 0.3, another double
  EXPECT_EQ(FormatShortest(1e30), "1e+30");
  EXPECT_EQ(FormatShortest(-2.5), "-2.5");
  for (double v : {0.85, 1.0 / 3, 6.02214076e23})
    EXPECT_EQ(std::stod(FormatShortest(v)), v) << FormatShortest(v);
}

TEST(FormatSignificant, WritesPrintfsPercentG) {
  EXPECT_EQ(FormatSignificant(3), "3");
  EXPECT_EQ(FormatSignificant(1000000), "1e+06");
  EXPECT_EQ(FormatSignificant(1234567), "1.23457e+06");
  EXPECT_EQ(FormatSignificant(0.1), "0.1");
  EXPECT_EQ(FormatSignificant(1e-7), "1e-07");
  EXPECT_EQ(FormatSignificant(-2.5), "-2.5");
  EXPECT_EQ(FormatSignificant(-1.7976931348623157e308), "-1.79769e+308");
  EXPECT_EQ(FormatSignificant(0.123456789, 4), "0.1235");
  EXPECT_EQ(FormatSignificant(0.1, 17), "0.10000000000000001");
  EXPECT_EQ(FormatSignificant(-1.7976931348623157e308, 17), "-1.7976931348623157e+308");
  EXPECT_EQ(FormatSignificant(std::numeric_limits<double>::infinity()), "inf");
}

TEST(JsonNestingDepth, CountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonNestingDepth("1"), 0);
  EXPECT_EQ(JsonNestingDepth(R"({"a": [1, {"b": []}]})"), 4);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[[\"[[["})"), 1);
  EXPECT_EQ(JsonNestingDepth(std::string(100000, '[')), 100000);
}

TEST(CatchExceptions, TurnsAnEscapingExceptionIntoAStatus) {
  Status s = CatchExceptions("plan.yaml", []() -> Status { throw std::runtime_error("boom"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "plan.yaml: unexpected error: boom");
  Result<int> r = CatchExceptions("x", []() -> Result<int> { throw std::bad_alloc(); });
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(*CatchExceptions("x", []() -> Result<int> { return 3; }), 3);
}

}  // namespace
}  // namespace frontier
