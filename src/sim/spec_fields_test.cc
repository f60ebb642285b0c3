// SimSpec's flag table (spec_fields.h): one row per flag, and the fields
// checked as they are parsed; the flags a simulate run records as given.
#include "sim/spec_fields.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/engine/spec_table.h"
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

// The number is read by the core parser (core/parse.h), all of the text:
// std::stoi, which it replaced, took leading blanks and stopped at junk.
TEST(SpecFields, MaxNumSeqsIsAllOfTheTextLikeEveryNumber) {
  SimSpec spec;
  ASSERT_TRUE(Set("--max-num-seqs", "12", &spec).empty());
  EXPECT_EQ(spec.max_num_seqs, 12);
  for (const char* bad : {"12abc", " 12", "12 ", "1.5", "0x10", "99999999999999999999"}) {
    spec.max_num_seqs = 7;
    EXPECT_EQ(Set("--max-num-seqs", bad, &spec),
              std::string("must be an integer in [1, 1000000] or 'auto', got '") + bad + "'");
    EXPECT_EQ(spec.max_num_seqs, 7) << bad;  // a refused value leaves the field as it was
  }
  // Outside text is quoted as every parse error quotes it: printable, its first 40 characters.
  EXPECT_EQ(Set("--max-num-seqs", std::string(50, '9') + "\x1b[2J", &spec),
            "must be an integer in [1, 1000000] or 'auto', got '" + std::string(40, '9') + "...'");
  EXPECT_EQ(Set("--max-num-seqs", "1\x1b[2J", &spec), "must be an integer in [1, 1000000] or 'auto', got '1?[2J'");
}

// Every field of the table with a plan key is in a simulated system's stored
// configuration (SimSpecConfig): a system that changes any one of them alone
// is stored as another configuration. A field added to the table is stored
// without more code, or this fails.
TEST(SpecFields, EveryFieldWithAPlanKeyChangesTheStoredConfig) {
  for (const SimSpecField& f : SimSpecTable()) {
    const std::string key = f.plan_key;
    if (key.empty()) continue;  // the system's own (hardware, gpus), written beside it
    SimSpec base;
    if (key.find('.') != std::string::npos) base.prefill_workers = base.decode_workers = 1;  // the pools in use
    SimSpec changed = base;
    std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<decltype(member), FlagRow<SimSpec>::Setter>) {
            ASSERT_EQ(member(std::string(f.flag.name) == "--max-num-seqs" ? "12" : "off", &changed), "") << key;
          } else {
            auto& v = changed.*member;
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, std::optional<std::string>>) v = "x";
            else if constexpr (std::is_same_v<V, bool>) v = !v;
            else if constexpr (std::is_same_v<V, int>) v = v + 1 <= f.max ? v + 1 : v - 1;
            else if constexpr (std::is_same_v<V, std::optional<int>>) v = static_cast<int>(f.min);
            else if constexpr (std::is_same_v<V, std::optional<double>>) v = f.min;
            else ADD_FAILURE() << key << ": a field type this test does not change";
          }
        },
        f.flag.field);
    EXPECT_NE(SimSpecConfig(changed), SimSpecConfig(base)) << key;
  }
  // Each in its words.
  SimSpec spec;
  spec.max_num_seqs = 12;
  spec.acceptance_rate = 0.85;
  spec.prefix_caching = false;
  spec.prefill_workers = 2;
  spec.prefill_tp = 4;
  EXPECT_EQ(SimSpecConfig(spec), (std::map<std::string, std::string>{{"acceptance_rate", "0.85"},
                                                                      {"ep", "1"},
                                                                      {"max_num_seqs", "12"},
                                                                      {"model", "llama-3.1-8b"},
                                                                      {"prefill", "2x(tp4,dp1,ep1)"},
                                                                      {"prefix_caching", "off"},
                                                                      {"tp", "1"}}));
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
