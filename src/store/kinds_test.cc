// The store's closed sets of names (kinds.h): every value's stored name
// parses back to it, and any other text is refused naming the field and the
// names allowed.
#include "store/kinds.h"

#include <gtest/gtest.h>

namespace frontier::store {
namespace {

TEST(Kinds, EveryLoadKindRoundTripsThroughItsStoredName) {
  const struct {
    LoadKind kind;
    const char* name;
  } cases[] = {{LoadKind::kConcurrency, "concurrency"},
               {LoadKind::kRequestRate, "request_rate"},
               {LoadKind::kProbe, "probe"}};
  for (const auto& c : cases) {
    EXPECT_EQ(LoadKindName(c.kind), c.name);
    const Result<LoadKind> back = ParseLoadKind(c.name);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, c.kind) << c.name;
  }
}

TEST(Kinds, EverySourceRoundTripsThroughItsStoredName) {
  const struct {
    Source source;
    const char* name;
  } cases[] = {{Source::kMeasured, "measured"}, {Source::kSimulated, "simulated"}, {Source::kImported, "imported"}};
  for (const auto& c : cases) {
    EXPECT_EQ(SourceName(c.source), c.name);
    const Result<Source> back = ParseSource(c.name);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, c.source) << c.name;
  }
}

TEST(Kinds, AnUnknownNameIsRefusedNamingTheFieldAndTheNamesAllowed) {
  for (const char* text : {"qps", "", "Concurrency", "request-rate", "concurrency "}) {
    const Result<LoadKind> k = ParseLoadKind(text);
    ASSERT_FALSE(k.ok()) << text;
    EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(k.status().message(),
              "load_kind must be concurrency, request_rate or probe, got '" + std::string(text) + "'");
  }
  for (const char* text : {"guessed", "", "Measured", "simulated-live"}) {
    const Result<Source> s = ParseSource(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.status().message(), "source must be measured, simulated or imported, got '" + std::string(text) + "'");
  }
  // A long source is quoted by its first 40 characters, as the export reader always did.
  const Result<Source> s = ParseSource(std::string(50, 'x'));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "source must be measured, simulated or imported, got '" + std::string(40, 'x') + "'");
}

}  // namespace
}  // namespace frontier::store
