// The fixed profile's emitted timeline against its exact schedule, measured
// with the server's own emission timestamps and a client in the same process
// (same monotonic clock), at concurrency 1 and 1,000.
//
// What must hold on any machine, however loaded: the schedule is exact (due
// times are arrival + ttft + j * itl to the nanosecond), no event is written
// before it is due, no event is read before it is due, the client reads them
// in order, and every count is exact. How late the writes are is a property
// of the machine, not of the code: the tests print it, and
// bench/serve_capacity measures it (docs/serve.md).
#include <map>

#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

struct Lateness {
  std::vector<double> server_ms;  // written - due
  std::vector<double> client_ms;  // client read - due (same clock)
};

// Checks every trace against the schedule and collects lateness.
Lateness Check(const std::vector<RequestTrace>& traces, const std::vector<ProbeResult>& results, double ttft_ms,
               double itl_ms, int tokens) {
  std::map<uint64_t, const RequestTrace*> by_id;
  for (const auto& t : traces) by_id[t.id] = &t;
  Lateness out;
  for (const auto& r : results) {
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.reply.status, 200);
    EXPECT_TRUE(r.reply.complete);
    const uint64_t id = std::stoull(r.reply.headers.at("x-request-id"));
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      ADD_FAILURE() << "no trace for request " << id;
      continue;
    }
    const RequestTrace& t = *it->second;
    EXPECT_EQ(t.finish_reason, "length");
    EXPECT_EQ(t.completion_tokens, tokens);
    std::vector<const ProbeEvent*> content;
    for (const auto& e : r.reply.events)
      if (e.has_content) content.push_back(&e);
    EXPECT_EQ(content.size(), t.events.size());
    for (size_t j = 0; j < t.events.size(); ++j) {
      const Nanos planned = t.arrival_ns + MillisToNanos(ttft_ms) + static_cast<Nanos>(j) * MillisToNanos(itl_ms);
      EXPECT_EQ(t.events[j].due_ns, planned) << "event " << j;  // the schedule itself is exact
      out.server_ms.push_back(NanosToMillis(t.events[j].written_ns - t.events[j].due_ns));
      EXPECT_GE(t.events[j].written_ns, t.events[j].due_ns) << "written before it was due";
      if (j < content.size()) {
        EXPECT_GE(content[j]->t_ns, t.events[j].due_ns) << "read before it was due";
        if (j > 0) {
          EXPECT_GE(content[j]->t_ns, content[j - 1]->t_ns) << "read out of order";
        }
        out.client_ms.push_back(NanosToMillis(content[j]->t_ns - t.events[j].due_ns));
      }
    }
  }
  return out;
}

TEST(FixedTimeline, ConcurrencyOneMatchesTheSchedule) {
  const double ttft = 50, itl = 10;
  const int tokens = 20;
  auto server = StartFixed(ttft, itl);
  ASSERT_TRUE(server);
  std::vector<ProbeResult> all;
  for (int i = 0; i < 5; ++i) {  // one at a time
    auto r = RunStreams("127.0.0.1", server->port(),
                        {{"/v1/completions", R"({"prompt":"a b c","max_tokens":20,"stream":true})"}}, {});
    all.insert(all.end(), r.begin(), r.end());
    // The first token cannot be seen sooner than the schedule allows after
    // the request was sent (the connect started before the server admitted it).
    const auto& ev = r[0].reply.events;
    ASSERT_FALSE(ev.empty());
    EXPECT_GE(ev.front().t_ns - r[0].connect_ns, MillisToNanos(ttft));
  }
  const Lateness l = Check(WaitTraces(*server, all.size()), all, ttft, itl, tokens);
  ASSERT_EQ(l.server_ms.size(), 100u);
  ASSERT_EQ(l.client_ms.size(), 100u);
  std::printf("concurrency 1: server lateness p50 %.3f p99 %.3f max %.3f ms; client p50 %.3f p99 %.3f ms\n",
              Pct(l.server_ms, 50), Pct(l.server_ms, 99), Pct(l.server_ms, 100), Pct(l.client_ms, 50),
              Pct(l.client_ms, 99));
  ExpectHealthy(server->port());
}

TEST(FixedTimeline, ConcurrencyThousandMatchesTheSchedule) {
  const double ttft = 100, itl = 50;
  const int tokens = 10;
  auto server = StartFixed(ttft, itl);
  ASSERT_TRUE(server);
  std::vector<ProbeRequest> reqs(1000, ProbeRequest{"/v1/completions",
                                                    R"({"prompt":[1,2,3,4],"max_tokens":10,"stream":true})"});
  ProbeOptions opt;
  opt.keep_event_data = false;
  const auto results = RunStreams("127.0.0.1", server->port(), reqs, opt);
  const Lateness l = Check(WaitTraces(*server, results.size()), results, ttft, itl, tokens);
  ASSERT_EQ(l.server_ms.size(), 10000u);
  ASSERT_EQ(l.client_ms.size(), 10000u);
  std::printf("concurrency 1000: server lateness p50 %.3f p99 %.3f max %.3f ms; client p50 %.3f p99 %.3f ms\n",
              Pct(l.server_ms, 50), Pct(l.server_ms, 99), Pct(l.server_ms, 100), Pct(l.client_ms, 50),
              Pct(l.client_ms, 99));
  ExpectHealthy(server->port());
}

TEST(FixedTimeline, TokensPerEventGroupTokens) {
  auto server = StartFixed(20, 10, /*k=*/3);
  ASSERT_TRUE(server);
  const HttpReply r = Post(server->port(), "/v1/completions",
                           R"({"prompt":"x","max_tokens":10,"stream":true,"stream_options":{"include_usage":true}})");
  auto traces = WaitTraces(*server, 1);
  ASSERT_EQ(traces.size(), 1u);
  std::vector<int> k;
  for (const auto& e : traces[0].events) k.push_back(e.tokens);
  EXPECT_EQ(k, (std::vector<int>{3, 3, 3, 1}));
  EXPECT_EQ(Events(r).back()["usage"]["completion_tokens"], 10);
  EXPECT_EQ(CountTextTokens(StreamText(r)), 10);
}

}  // namespace
}  // namespace frontier::serve::testing
