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

TEST(Kinds, EverySystemKindRoundTripsThroughItsStoredName) {
  const struct {
    SystemKind kind;
    const char* name;
  } cases[] = {{SystemKind::kServer, "server"},
               {SystemKind::kLaunched, "launched"},
               {SystemKind::kSimulated, "simulated"},
               {SystemKind::kSimulatedLive, "simulated-live"},
               {SystemKind::kProbe, "probe"}};
  for (const auto& c : cases) {
    EXPECT_EQ(SystemKindName(c.kind), c.name);
    const Result<SystemKind> back = ParseSystemKind(c.name);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, c.kind) << c.name;
    // As a run's config keeps it.
    const Result<SystemKind> of = SystemKindOf({{"gpus", "8"}, {"kind", c.name}});
    ASSERT_TRUE(of.ok()) << of.status().message();
    EXPECT_EQ(*of, c.kind) << c.name;
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
  for (const char* text : {"sim", "", "Server", "simulated_live"}) {
    const Result<SystemKind> k = ParseSystemKind(text);
    ASSERT_FALSE(k.ok()) << text;
    EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(k.status().message(),
              "kind must be server, launched, simulated, simulated-live or probe, got '" + std::string(text) + "'");
  }
  // An imported run's config names no kind.
  const Result<SystemKind> none = SystemKindOf({{"hardware", "h200"}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "the run's config has no kind");
  // A long source is quoted by its first 40 characters, as the export reader always did.
  const Result<Source> s = ParseSource(std::string(50, 'x'));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "source must be measured, simulated or imported, got '" + std::string(40, 'x') + "'");
  // So is every other kind: a hostile file's text is not echoed whole.
  const Result<LoadKind> k = ParseLoadKind(std::string(5000, 'y'));
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(),
            "load_kind must be concurrency, request_rate or probe, got '" + std::string(40, 'y') + "'");
}

}  // namespace
}  // namespace frontier::store
