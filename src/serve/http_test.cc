#include "serve/http.h"

#include <gtest/gtest.h>

namespace frontier::serve {
namespace {

TEST(ParseRequestHead, PostWithLengthAndKeepAlive) {
  HttpRequest r;
  const std::string raw =
      "POST /v1/completions?x=1 HTTP/1.1\r\nHost: a\r\ncontent-LENGTH: 12\r\n\r\n{\"prompt\":1}";
  const HeadResult h = ParseRequestHead(raw, 4096, r);
  ASSERT_EQ(h.state, ParseState::kHeadDone);
  EXPECT_EQ(h.head_bytes, raw.size() - 12);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/v1/completions");
  EXPECT_EQ(r.content_length, 12);
  EXPECT_TRUE(r.keep_alive);
}

TEST(ParseRequestHead, IncompleteNeedsMore) {
  HttpRequest r;
  EXPECT_EQ(ParseRequestHead("GET /health HTTP/1.1\r\nHost: a\r\n", 4096, r).state, ParseState::kNeedMore);
}

TEST(ParseRequestHead, ConnectionHeadersAndVersions) {
  HttpRequest r;
  ASSERT_EQ(ParseRequestHead("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n", 4096, r).state, ParseState::kHeadDone);
  EXPECT_FALSE(r.keep_alive);
  ASSERT_EQ(ParseRequestHead("GET / HTTP/1.0\r\n\r\n", 4096, r).state, ParseState::kHeadDone);
  EXPECT_FALSE(r.keep_alive);
  ASSERT_EQ(ParseRequestHead("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 4096, r).state,
            ParseState::kHeadDone);
  EXPECT_TRUE(r.keep_alive);
  ASSERT_EQ(ParseRequestHead("POST / HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", 4096, r).state,
            ParseState::kHeadDone);
  EXPECT_TRUE(r.expect_continue);
}

TEST(ParseRequestHead, Errors) {
  HttpRequest r;
  HeadResult h = ParseRequestHead("garbage\r\n\r\n", 4096, r);
  EXPECT_EQ(h.state, ParseState::kError);
  EXPECT_EQ(h.error_status, 400);
  h = ParseRequestHead("GET / HTTP/2.0\r\n\r\n", 4096, r);
  EXPECT_EQ(h.error_status, 505);
  h = ParseRequestHead("POST / HTTP/1.1\r\nContent-Length: -3\r\n\r\n", 4096, r);
  EXPECT_EQ(h.error_status, 400);
  h = ParseRequestHead("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 4096, r);
  EXPECT_EQ(h.error_status, 411);
  h = ParseRequestHead("POST / HTTP/1.1\r\nHost: a\r\n\r\n", 4096, r);
  EXPECT_EQ(h.error_status, 411);
  h = ParseRequestHead("GET / HTTP/1.1\r\nX: " + std::string(5000, 'a'), 4096, r);
  EXPECT_EQ(h.error_status, 431);
}

TEST(AppendBodyPart, ChunkedFraming) {
  std::string out;
  AppendBodyPart(out, "data: x\n\n", true);
  EXPECT_EQ(out, "9\r\ndata: x\n\n\r\n");
  AppendBodyPart(out, "", true);  // never a terminating chunk by accident
  EXPECT_EQ(out, "9\r\ndata: x\n\n\r\n");
  std::string raw;
  AppendBodyPart(raw, std::string(26, 'z'), false);
  EXPECT_EQ(raw.size(), 26u);
}

TEST(FormatResponse, HeadersAndBody) {
  const std::string r = FormatResponse(404, "application/json", "{}", false);
  EXPECT_EQ(r.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_NE(r.find("content-length: 2\r\n"), std::string::npos);
  EXPECT_NE(r.find("connection: close\r\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 6), "\r\n\r\n{}");
}

}  // namespace
}  // namespace frontier::serve
