#include "core/ascii.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(AsciiTest, LowersAToZOnly) {
  EXPECT_EQ(AsciiLower("Content-Length: 42"), "content-length: 42");
  EXPECT_EQ(AsciiLower("PostgreSQL"), "postgresql");
  EXPECT_EQ(AsciiLower(""), "");
  // Bytes of UTF-8 text and the neighbours of A and Z are kept.
  EXPECT_EQ(AsciiLower("\xC3\x89T\xC3\x89 @[`{"), "\xC3\x89t\xC3\x89 @[`{");
}

TEST(AsciiTest, EqualsIgnoringCase) {
  EXPECT_TRUE(AsciiEqualsIgnoreCase("Transfer-Encoding", "transfer-encoding"));
  EXPECT_FALSE(AsciiEqualsIgnoreCase("Transfer-Encoding", "transfer-encodin"));
  EXPECT_FALSE(AsciiEqualsIgnoreCase("a@", "A`"));  // '@' and '`' are 0x20 apart but not letters
  EXPECT_TRUE(AsciiEqualsIgnoreCase("", ""));
}

}  // namespace
}  // namespace frontier
