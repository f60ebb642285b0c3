// `frontier validate`'s flags (sim/fit/validate.h): the table's fields and
// order, and ValidationOptionsProblem's messages with the values that draw them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/fit/validate.h"

namespace frontier::sim {
namespace {

TEST(ValidateFlags, TheTableListsEachFlagOnceInHelpOrder) {
  std::vector<std::string> names;
  for (const FlagRow<ValidateOptions>& row : ValidateFlagRows()) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"--id", "--stack", "--offline-requests", "--server-requests", "--seed",
                                             "--no-loo", "--refit"}));
  // --seed fills the simulation options every result is drawn with.
  ValidateOptions o;
  o.*std::get<uint64_t ValidateOptions::*>(ValidateFlagRows()[4].field) = 7;
  EXPECT_EQ(static_cast<const ValidationOptions&>(o).seed, 7u);
}

TEST(ValidateFlags, EachRequestCountOutOfRangeIsNamedWithItsRange) {
  ValidateOptions o;
  EXPECT_EQ(ValidationOptionsProblem(o), "");  // the defaults, 6000 and 4000
  o.offline_requests = 99;
  EXPECT_EQ(ValidationOptionsProblem(o), "--offline-requests must be an integer in [100, 1000000], got 99");
  o.offline_requests = 1'000'000;
  o.server_requests = 1'000'001;
  EXPECT_EQ(ValidationOptionsProblem(o), "--server-requests must be an integer in [100, 1000000], got 1000001");
}

}  // namespace
}  // namespace frontier::sim
