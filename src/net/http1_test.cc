#include "net/http1.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace frontier::net {
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

TEST(ParseRequestHead, QueryAndHeadersKeptWhenAsked) {
  HttpRequest r;
  const std::string raw =
      "GET /api/runs?model=a%20b&sort=-date HTTP/1.1\r\nHost: a\r\nAuthorization:  Bearer xyz \r\n"
      "Cookie: frontier_token=1\r\n\r\n";
  ASSERT_EQ(ParseRequestHead(raw, 4096, r).state, ParseState::kHeadDone);
  EXPECT_EQ(r.target, "/api/runs");
  EXPECT_EQ(r.query, "model=a%20b&sort=-date");
  EXPECT_TRUE(r.headers.empty());  // not asked for
  EXPECT_EQ(r.Header("authorization"), nullptr);
  ASSERT_EQ(ParseRequestHead(raw, 4096, r, /*keep_headers=*/true).state, ParseState::kHeadDone);
  ASSERT_EQ(r.headers.size(), 3u);
  ASSERT_NE(r.Header("authorization"), nullptr);
  EXPECT_EQ(*r.Header("authorization"), "Bearer xyz");
  EXPECT_EQ(*r.Header("cookie"), "frontier_token=1");
  EXPECT_EQ(r.Header("x-missing"), nullptr);
  // A second parse into the same request starts clean.
  ASSERT_EQ(ParseRequestHead("GET / HTTP/1.1\r\n\r\n", 4096, r).state, ParseState::kHeadDone);
  EXPECT_EQ(r.query, "");
  EXPECT_TRUE(r.headers.empty());
}

TEST(FormatResponse, StatusLineLengthAndClose) {
  EXPECT_EQ(FormatResponse(400, "text/plain", "bad", false, "x-a: 1\r\n"),
            "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 3\r\n"
            "connection: close\r\nx-a: 1\r\n\r\nbad");
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

// RFC 9112 framing where two readers could disagree: each is refused with 400,
// and as soon as its bytes arrive (an incomplete head never waits for more).
TEST(ParseRequestHead, AmbiguousFramingIsRefusedAtOnce) {
  HttpRequest r;
  const char* const kBad[] = {
      "GET / HTTP/1.1\nHost: a\n\n",                       // bare LF line ends
      "GET / HTTP/1.1\r\nHost: a\n",                         // a bare LF, head not finished
      "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n",             // a bare CR
      "GET / HTTP/1.1\r\nHost: a\r\n  folded\r\n\r\n",      // obsolete line folding
      "GET / HTTP/1.1\r\nHost : a\r\n\r\n",                 // whitespace before the colon
      "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\n",
  };
  for (const char* raw : kBad) {
    const HeadResult h = ParseRequestHead(raw, 4096, r);
    EXPECT_EQ(h.state, ParseState::kError) << raw;
    EXPECT_EQ(h.error_status, 400) << raw;
  }
  std::string nul = "GET / HTTP/1.1\r\nX: a";
  nul.push_back('\0');
  EXPECT_EQ(ParseRequestHead(nul, 4096, r).error_status, 400);
  // A CR at the very end may be the first half of a CRLF: wait for more.
  EXPECT_EQ(ParseRequestHead("GET / HTTP/1.1\r\nHost: a\r", 4096, r).state, ParseState::kNeedMore);
  // Blank lines before a request are still tolerated (RFC 9112 section 2.2).
  EXPECT_EQ(ParseRequestHead("\r\n\r\nGET / HTTP/1.1\r\n\r\n", 4096, r).state, ParseState::kHeadDone);
}

// Feeds `raw` in pieces of `step` bytes; returns the de-chunked body.
std::string FeedAll(ResponseParser& p, std::string_view raw, size_t step, size_t* used_total = nullptr) {
  std::string body;
  size_t used = 0;
  while (used < raw.size() && (p.state() == ResponseParser::kHead || p.state() == ResponseParser::kBody)) {
    const std::string_view piece = raw.substr(used, std::min(step, raw.size() - used));
    const size_t n = p.Feed(piece, [&](std::string_view b) { body.append(b); });
    used += n;
    if (n < piece.size()) break;
  }
  if (used_total) *used_total = used;
  return body;
}

TEST(ResponseParser, ChunkedBodyInEverySplit) {
  const std::string raw =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
      "9\r\ndata: x\n\n\r\n1A;ext=1\r\n" + std::string(26, 'z') + "\r\n0\r\nTrailer: y\r\n\r\n";
  for (size_t step = 1; step <= raw.size(); ++step) {
    ResponseParser p;
    size_t used = 0;
    const std::string body = FeedAll(p, raw, step, &used);
    ASSERT_EQ(p.state(), ResponseParser::kDone) << step << " " << p.error();
    EXPECT_EQ(body, "data: x\n\n" + std::string(26, 'z')) << step;
    EXPECT_EQ(used, raw.size());
    EXPECT_EQ(p.head().status, 200);
    EXPECT_TRUE(p.head().chunked);
    EXPECT_TRUE(p.head().event_stream);
    EXPECT_TRUE(p.head().keep_alive);
  }
}

TEST(ResponseParser, ErrorStatusWithEmptyBodyIsComplete) {
  for (int status : {503, 429, 302}) {
    ResponseParser p;
    const std::string raw = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\n\r\n";
    FeedAll(p, raw, raw.size());
    EXPECT_EQ(p.state(), ResponseParser::kDone);
    EXPECT_EQ(p.head().status, status);
  }
}

TEST(ResponseParser, LengthBodyLeavesTheNextResponse) {
  ResponseParser p;
  const std::string raw = "HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200";
  size_t used = 0;
  EXPECT_EQ(FeedAll(p, raw, raw.size(), &used), "{}");
  EXPECT_EQ(p.state(), ResponseParser::kDone);
  EXPECT_EQ(used, raw.size() - 12);
}

TEST(ResponseParser, InterimResponsesAreSkipped) {
  ResponseParser p;
  const std::string raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
  EXPECT_EQ(FeedAll(p, raw, 7), "x");
  EXPECT_EQ(p.head().status, 200);
}

TEST(ResponseParser, CloseDelimitedBodyEndsAtEof) {
  ResponseParser p;
  const std::string raw = "HTTP/1.0 200 OK\r\n\r\nabc";
  EXPECT_EQ(FeedAll(p, raw, 5), "abc");
  EXPECT_EQ(p.state(), ResponseParser::kBody);
  EXPECT_FALSE(p.head().keep_alive);
  EXPECT_TRUE(p.OnEof());
}

TEST(ResponseParser, ChunkedCutShortIsNotComplete) {
  ResponseParser p;
  FeedAll(p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 100);
  EXPECT_FALSE(p.OnEof());
  EXPECT_EQ(p.head().status, 200);
}

TEST(ResponseParser, MalformedInputIsAnError) {
  for (std::string raw : {std::string("HTTP/2 200\r\n\r\n"), std::string("garbage\r\n\r\n"),
                          std::string("HTTP/1.1 2x0 OK\r\n\r\n"),
                          std::string("HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999999\r\n\r\n"),
                          std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
                          std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
                          std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n"),
                          std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1234567890abcdef0\r\n")}) {
    ResponseParser p;
    FeedAll(p, raw, raw.size());
    EXPECT_EQ(p.state(), ResponseParser::kError) << raw;
    EXPECT_FALSE(p.error().empty());
  }
  ResponseParser p(64);
  FeedAll(p, "HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a'), 10);
  EXPECT_EQ(p.state(), ResponseParser::kError);
}

TEST(ResponseParser, ResetReadsTheNextResponse) {
  ResponseParser p;
  FeedAll(p, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", 100);
  ASSERT_EQ(p.state(), ResponseParser::kDone);
  p.Reset();
  EXPECT_EQ(FeedAll(p, "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nyz", 3), "yz");
  EXPECT_EQ(p.head().status, 201);
}

TEST(AppendChunk, Framing) {
  std::string out;
  AppendChunk(out, "data: x\n\n");
  AppendChunk(out, "");
  EXPECT_EQ(out, "9\r\ndata: x\n\n\r\n");
}

}  // namespace
}  // namespace frontier::net
