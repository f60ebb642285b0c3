// The store's closed sets of names (kinds.h): every value's stored name
// parses back to it, and any other text is refused naming the field and the
// names allowed.
#include "store/kinds.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

namespace frontier::store {
namespace {

// Each value of `cases` is named its text, and the text parses back to it.
template <typename E, size_t N>
void ExpectRoundTrips(const std::pair<E, const char*> (&cases)[N], std::string (*name)(E),
                      Result<E> (*parse)(std::string_view)) {
  for (const auto& [value, text] : cases) {
    EXPECT_EQ(name(value), text);
    const Result<E> back = parse(text);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, value) << text;
  }
}

// Each of `texts` is refused: InvalidArgument "<field> must be <allowed>, got '<text>'".
template <typename E>
void ExpectRefused(Result<E> (*parse)(std::string_view), std::initializer_list<const char*> texts,
                   const std::string& must_be) {
  for (const char* text : texts) {
    const Result<E> r = parse(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), must_be + ", got '" + std::string(text) + "'");
  }
}

TEST(Kinds, EveryLoadKindRoundTripsThroughItsStoredName) {
  const std::pair<LoadKind, const char*> cases[] = {
      {LoadKind::kConcurrency, "concurrency"}, {LoadKind::kRequestRate, "request_rate"}, {LoadKind::kProbe, "probe"}};
  ExpectRoundTrips(cases, LoadKindName, ParseLoadKind);
}

TEST(Kinds, EverySourceRoundTripsThroughItsStoredName) {
  const std::pair<Source, const char*> cases[] = {
      {Source::kMeasured, "measured"}, {Source::kSimulated, "simulated"}, {Source::kImported, "imported"}};
  ExpectRoundTrips(cases, SourceName, ParseSource);
}

TEST(Kinds, EverySystemKindRoundTripsThroughItsStoredName) {
  const std::pair<SystemKind, const char*> cases[] = {{SystemKind::kServer, "server"},
                                                      {SystemKind::kLaunched, "launched"},
                                                      {SystemKind::kSimulated, "simulated"},
                                                      {SystemKind::kSimulatedLive, "simulated-live"},
                                                      {SystemKind::kProbe, "probe"}};
  ExpectRoundTrips(cases, SystemKindName, ParseSystemKind);
  for (const auto& [kind, name] : cases) {  // as a run's config keeps it
    const Result<SystemKind> of = SystemKindOf({{"gpus", "8"}, {"kind", name}});
    ASSERT_TRUE(of.ok()) << of.status().message();
    EXPECT_EQ(*of, kind) << name;
  }
}

TEST(Kinds, AnUnknownNameIsRefusedNamingTheFieldAndTheNamesAllowed) {
  ExpectRefused(ParseLoadKind, {"qps", "", "Concurrency", "request-rate", "concurrency "},
                "load_kind must be concurrency, request_rate or probe");
  ExpectRefused(ParseSource, {"guessed", "", "Measured", "simulated-live"},
                "source must be measured, simulated or imported");
  ExpectRefused(ParseSystemKind, {"sim", "", "Server", "simulated_live"},
                "kind must be server, launched, simulated, simulated-live or probe");
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
