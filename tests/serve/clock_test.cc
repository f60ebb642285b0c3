// The server reads time only through its clock: a test that moves the clock
// moves the server's schedule, without waiting for it.
#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

// Tokens a minute apart: once the clock jumps two minutes, the next pass of
// the loop (a request on another connection) writes both late tokens
// at once, and the traces hold the exact schedule on the clock:
// arrival + ttft + j * itl, each written at or after it was due.
TEST(ServeClock, AJumpOfTheClockMakesTokensAMinuteApartDueAtOnce) {
  JumpClock clock;
  auto s = StartFixed(1, 60'000, 1, TestOptions(), 131072, clock);
  ASSERT_TRUE(s);
  auto c = ProbeConnection::Connect("127.0.0.1", s->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":3,"stream":true})")).ok());
  EXPECT_EQ(WaitSnapshot(*s, [](const ServerSnapshot& x) { return x.active_requests == 1; }).active_requests, 1);
  const Nanos jumped = clock.Now();
  clock.Jump(120 * kNanosPerSecond);
  EXPECT_EQ(Post(s->port(), "/v1/completions", "{").status, 400);  // any request: a pass of the loop
  auto r = c->ReadReply(10 * kNanosPerSecond);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(CountTextTokens(StreamText(*r)), 3);
  EXPECT_TRUE(EndsWithDone(*r));
  const auto traces = WaitTraces(*s, 1);
  ASSERT_EQ(traces.size(), 1u);
  const RequestTrace& t = traces[0];
  EXPECT_EQ(t.finish_reason, "length");
  EXPECT_LT(t.arrival_ns, jumped);
  ASSERT_EQ(t.events.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(t.events[j].due_ns, t.arrival_ns + kNanosPerMilli + static_cast<Nanos>(j) * 60 * kNanosPerSecond);
    EXPECT_GE(t.events[j].written_ns, t.events[j].due_ns) << "event " << j;
  }
  EXPECT_GE(t.events[1].written_ns, jumped + 120 * kNanosPerSecond);  // after the jump, on the clock
  s->Stop();
}

}  // namespace
}  // namespace frontier::serve::testing
