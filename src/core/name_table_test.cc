#include "core/name_table.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

enum class Color { kRed, kGreen, kBlue };

constexpr NameEntry<Color> kColors[] = {
    {Color::kRed, "red"}, {Color::kGreen, "green"}, {Color::kRed, "crimson"}};

TEST(NameTableTest, NamesBothWaysWithAliases) {
  EXPECT_STREQ(NameOf(kColors, Color::kRed), "red");  // the first row, not the alias
  EXPECT_STREQ(NameOf(kColors, Color::kGreen), "green");
  EXPECT_STREQ(NameOf(kColors, Color::kBlue), "?");
  EXPECT_STREQ(NameOf(kColors, Color::kBlue, "none"), "none");
  EXPECT_EQ(ValueOf(kColors, "crimson"), Color::kRed);
  EXPECT_EQ(ValueOf(kColors, "green"), Color::kGreen);
  EXPECT_FALSE(ValueOf(kColors, "Green").has_value());
  EXPECT_FALSE(ValueOf(kColors, "").has_value());
}

TEST(NameTableTest, ListsNamesForMessages) {
  EXPECT_EQ(NamesList(kColors), "red, green or crimson");
  EXPECT_EQ(NamesList(kColors, " and "), "red, green and crimson");
  constexpr NameEntry<Color> kOne[] = {{Color::kBlue, "blue"}};
  EXPECT_EQ(NamesList(kOne), "blue");
  EXPECT_EQ(JoinNames({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(JoinNames({}), "");
}

}  // namespace
}  // namespace frontier
