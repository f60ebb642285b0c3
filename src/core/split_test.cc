#include "core/split.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

using Items = std::vector<std::string>;

TEST(SplitNonEmpty, DropsEmptyItems) {
  EXPECT_EQ(SplitNonEmpty("a,,b,", ','), (Items{"a", "b"}));
  EXPECT_EQ(SplitNonEmpty(",16,64", ','), (Items{"16", "64"}));
  EXPECT_EQ(SplitNonEmpty("llama-3.1-8b", ','), (Items{"llama-3.1-8b"}));
  EXPECT_EQ(SplitNonEmpty("", ','), Items{});
  EXPECT_EQ(SplitNonEmpty(",,,", ','), Items{});
}

TEST(SplitNonEmpty, SplitsOnTheSeparatorOnly) {
  EXPECT_EQ(SplitNonEmpty("  hello a  b ", ' '), (Items{"hello", "a", "b"}));
  EXPECT_EQ(SplitNonEmpty("a b,c", ','), (Items{"a b", "c"}));
}

}  // namespace
}  // namespace frontier
