#include "client/sse.h"

#include <gtest/gtest.h>

#include <vector>

namespace frontier::client {
namespace {

std::vector<std::string> FeedAll(SseParser& p, const std::vector<std::string>& pieces, bool* ok = nullptr) {
  std::vector<std::string> out;
  bool all = true;
  for (const auto& piece : pieces) {
    std::string padded = piece;
    padded.reserve(piece.size() + kSsePadding);  // the framer may read this far past an event
    all = all && p.Feed(padded, [&](std::string_view d, bool) { out.emplace_back(d); return true; });
  }
  if (ok) *ok = all;
  return out;
}

TEST(SseTest, EventsLinesAndKeepalives) {
  SseParser p;
  auto ev = FeedAll(p, {": keep-alive\n\ndata: {\"a\":1}\n\n", "event: x\nid: 3\ndata:{\"b\":2}\n\n",
                        "data: [DONE]\n\n"});
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0], "{\"a\":1}");
  EXPECT_EQ(ev[1], "{\"b\":2}");  // no space after the colon
  EXPECT_EQ(ev[2], "[DONE]");
  EXPECT_FALSE(p.HasPartialEvent());
}

TEST(SseTest, MultiLineDataJoinsWithNewline) {
  SseParser p;
  auto ev = FeedAll(p, {"data: line one\ndata: line two\n\n"});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0], "line one\nline two");
}

TEST(SseTest, CrlfAndLoneCrEvenWhenSplitAcrossReads) {
  SseParser p;
  auto ev = FeedAll(p, {"data: a\r", "\n\r", "\ndata: b\r\rdata: c\r\n\r\n"});
  // CR CR is a line end then a blank line: "b" is an event of its own.
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0], "a");
  EXPECT_EQ(ev[1], "b");
  EXPECT_EQ(ev[2], "c");
}

TEST(SseTest, EventSplitByteByByte) {
  const std::string s = "data: {\"x\": \"y\"}\r\n\r\ndata: 2\n\n";
  SseParser p;
  std::vector<std::string> pieces;
  for (char c : s) pieces.emplace_back(1, c);
  auto ev = FeedAll(p, pieces);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0], "{\"x\": \"y\"}");
  EXPECT_EQ(ev[1], "2");
}

TEST(SseTest, PartialEventIsReported) {
  SseParser p;
  auto ev = FeedAll(p, {"data: {\"a\":1}\n\ndata: {\"b\""});
  EXPECT_EQ(ev.size(), 1u);
  EXPECT_TRUE(p.HasPartialEvent());
  SseParser q;
  FeedAll(q, {"data: x\n"});  // line complete, event not ended
  EXPECT_TRUE(q.HasPartialEvent());
}

TEST(SseTest, UnknownFieldIsMalformed) {
  SseParser p;
  bool ok = true;
  auto ev = FeedAll(p, {"data: ok\n\n", "HTTP garbage here\n\n"}, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(ev.size(), 1u);
  EXPECT_NE(p.error().find("unknown field"), std::string::npos);
}

TEST(SseTest, CallbackCanStop) {
  SseParser p;
  int n = 0;
  std::string bytes = "data: 1\n\ndata: 2\n\n";
  bytes.reserve(bytes.size() + kSsePadding);
  EXPECT_TRUE(p.Feed(bytes, [&](std::string_view, bool) { ++n; return false; }));
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(p.stopped());
}

TEST(SseTest, ErrorFieldIsAnErrorEventInTheServersWords) {
  // llama.cpp's server streams an error as an "error:" field.
  SseParser p;
  std::vector<std::pair<std::string, bool>> got;
  std::string bytes = "error: {\"code\":400,\"message\":\"token 30000 out of vocabulary\"}\n\n";
  bytes.reserve(bytes.size() + kSsePadding);
  ASSERT_TRUE(p.Feed(bytes, [&](std::string_view d, bool err) { got.emplace_back(std::string(d), err); return true; }));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].second);
  EXPECT_EQ(got[0].first, "{\"code\":400,\"message\":\"token 30000 out of vocabulary\"}");
}

TEST(SseTest, ViewsStayValidWhenAnEventSpansReads) {
  // The first read ends inside the event: its data must be kept, not viewed.
  SseParser p;
  auto ev = FeedAll(p, {"data: {\"a\":1}\n", "\n"});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0], "{\"a\":1}");
}

}  // namespace
}  // namespace frontier::client
