#include "client/sse.h"

#include <gtest/gtest.h>

#include <vector>

namespace frontier::client {
namespace {

std::vector<std::string> FeedAll(SseParser& p, const std::vector<std::string>& pieces, bool* ok = nullptr) {
  std::vector<std::string> out;
  bool all = true;
  for (const auto& piece : pieces)
    all = all && p.Feed(piece, [&](std::string& d) { out.push_back(d); return true; });
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
  EXPECT_TRUE(p.Feed("data: 1\n\ndata: 2\n\n", [&](std::string&) { ++n; return false; }));
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(p.stopped());
}

}  // namespace
}  // namespace frontier::client
