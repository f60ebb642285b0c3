// The HTTP loop's timeouts against serve's own timing: a generation holds its
// connection, so neither timeout cuts a response whose tokens are slower than
// it; the idle clock starts when the response ends. (The timeouts and the
// connection cap themselves are tested on every server in
// tests/dashboard/fairness_test.cc.) Checked by order and counts, with short
// timeouts set through the options.
#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

ServeOptions ShortTimeouts() {
  ServeOptions o = TestOptions();
  o.http.idle_timeout = 50 * kNanosPerMilli;
  o.http.header_timeout = 50 * kNanosPerMilli;
  return o;
}

TEST(ServeTimeouts, ResponsesSlowerThanTheTimeoutsRunToTheirEnd) {
  // Each token event is 4 idle timeouts after the last: a held response, not an idle connection.
  auto s = StartFixed(/*ttft_ms=*/200, /*itl_ms=*/200, 1, ShortTimeouts());
  ASSERT_TRUE(s);
  // A stream, and pipelined behind it on the same connection a whole
  // (non-streamed) answer just as slow: the second waits, unread, while the
  // first is held, so no gap between them could count as idle.
  auto c = ProbeConnection::Connect("127.0.0.1", s->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":3,"stream":true})") +
                         FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":2})"))
                  .ok());
  auto streamed = c->ReadReply(30 * kNanosPerSecond);
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  EXPECT_EQ(streamed->status, 200);
  EXPECT_TRUE(EndsWithDone(*streamed));
  EXPECT_EQ(CountTextTokens(StreamText(*streamed)), 3);
  auto whole = c->ReadReply(30 * kNanosPerSecond);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(whole->status, 200);
  EXPECT_EQ(json::parse(whole->body)["usage"]["completion_tokens"], 2);
  // Then, left alone, the connection is closed as idle.
  EXPECT_TRUE(c->WaitClosed(30 * kNanosPerSecond));
  EXPECT_EQ(s->HttpStats().idle_timeouts, 1u);
  EXPECT_EQ(s->HttpStats().header_timeouts, 0u);
  const auto traces = WaitTraces(*s, 2);
  for (const RequestTrace& t : traces) EXPECT_NE(t.finish_reason, "abort");
  EXPECT_EQ(s->Snapshot().client_disconnects, 0u) << "a timeout is not a client leaving";
}

TEST(ServeTimeouts, AClientThatNeverFinishesItsRequestIsClosedAndNothingIsAdmitted) {
  auto s = StartFixed(1, 1, 1, ShortTimeouts());
  ASSERT_TRUE(s);
  auto c = ProbeConnection::Connect("127.0.0.1", s->port());
  ASSERT_TRUE(c.ok());
  const std::string req = FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":3,"stream":true})");
  ASSERT_TRUE(c->SendRaw(req.substr(0, req.size() - 5)).ok());  // all but the body's end
  EXPECT_TRUE(c->WaitClosed(30 * kNanosPerSecond));
  EXPECT_EQ(s->HttpStats().header_timeouts, 1u);
  EXPECT_EQ(s->Snapshot().requests_admitted, 0u);
  ExpectHealthy(s->port());
}

}  // namespace
}  // namespace frontier::serve::testing
