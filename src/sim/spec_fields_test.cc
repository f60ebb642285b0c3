// SimSpec's flag table (spec_fields.h): one row per flag, and the fields
// checked as they are parsed; the flags a simulate run records as given.
#include "sim/spec_fields.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/simulate_job.h"
#include "sim/simulate_options.h"

namespace frontier::sim {
namespace {

const FlagRow<SimSpec>& Field(const std::string& flag) {
  for (const FlagRow<SimSpec>& f : SimSpecFields())
    if (f.name == flag) return f;
  ADD_FAILURE() << "no field " << flag;
  return SimSpecFields().front();
}

// The setter's complaint, "" when the value is taken.
std::string Set(const std::string& flag, const std::string& value, SimSpec* spec) {
  return std::get<FlagRow<SimSpec>::Setter>(Field(flag).field)(value, spec);
}

TEST(SpecFields, EachFlagOnceWithHelpAndGroup) {
  std::set<std::string> seen;
  for (const FlagRow<SimSpec>& f : SimSpecFields()) {
    EXPECT_EQ(std::string(f.name).rfind("--", 0), 0u) << f.name;
    EXPECT_TRUE(seen.insert(f.name).second) << f.name;
    EXPECT_NE(std::string(f.help), "") << f.name;
    EXPECT_NE(std::string(f.group), "") << f.name;
  }
  EXPECT_EQ(seen.size(), 25u);
}

TEST(SpecFields, MaxNumSeqsTakesAutoOrACap) {
  SimSpec spec;
  ASSERT_TRUE(Set("--max-num-seqs", "64", &spec).empty());
  EXPECT_EQ(spec.max_num_seqs, 64);
  EXPECT_FALSE(spec.max_num_seqs_auto);
  ASSERT_TRUE(Set("--max-num-seqs", "auto", &spec).empty());
  EXPECT_TRUE(spec.max_num_seqs_auto);
  EXPECT_FALSE(spec.max_num_seqs);
  for (const char* bad : {"0", "12x", "", "1000001"}) {
    EXPECT_EQ(Set("--max-num-seqs", bad, &spec),
              std::string("must be an integer in [1, 1000000] or 'auto', got '") + bad + "'");
  }
}

TEST(SpecFields, PrefixCachingIsOnOrOff) {
  SimSpec spec;
  ASSERT_TRUE(Set("--prefix-caching", "off", &spec).empty());
  EXPECT_FALSE(spec.prefix_caching);
  EXPECT_EQ(Set("--prefix-caching", "yes", &spec), "must be on or off, got 'yes'");
}

TEST(ClientRtt, MicrosecondsInRange) {
  EXPECT_EQ(*ClientRttNanos(150), kDefaultClientRttNs);
  EXPECT_EQ(*ClientRttNanos(0.5), 500);
  EXPECT_FALSE(ClientRttNanos(-1).ok());
}

// The stored run's requested settings keep this list: SimSpec's flags, then
// the run's own, not --best-deployment's switches.
TEST(SimulateOwnFlags, SimSpecsThenTheRunsBoundsNotTheSearchSwitches) {
  const std::vector<std::string> own = SimulateOwnFlags();
  const size_t spec = SimSpecFields().size();
  ASSERT_EQ(own.size(), spec + 4);
  EXPECT_EQ(own.front(), SimSpecFields().front().name);
  EXPECT_EQ(std::vector<std::string>(own.begin() + static_cast<std::ptrdiff_t>(spec), own.end()),
            (std::vector<std::string>{"--concurrency", "--client-rtt-us", "--max-requests", "--max-memory-mb"}));
}

}  // namespace
}  // namespace frontier::sim
