#include "core/status.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("x=" + std::to_string(x) + " is odd; pass an even number");
  return x / 2;
}

Result<int> Quarter(int x) {
  FRONTIER_ASSIGN_OR_RETURN(int h, Half(x));
  FRONTIER_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, ResultCarriesValueOrError) {
  Result<int> ok = Quarter(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().ToString(), "invalid argument: x=3 is odd; pass an even number");
}

TEST(StatusTest, WithContextPrefixes) {
  Status s = NotFound("no such model").WithContext("--model");
  EXPECT_EQ(s.message(), "--model: no such model");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

}  // namespace
}  // namespace frontier
