// The streaming client against the scripted server: timestamps compared with
// the server's own emission times, token counting, dialects, usage fallback.
//
// What is asserted holds on any machine, however loaded: causality (the
// request is stamped sent before the server received it; every content event
// is stamped after the server wrote it, in order, and no later than the
// request's end), and exact counts. How small the stamp error is depends on
// the machine: the tests print it, bench/loadgen_capacity measures it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "client/stream_client.h"
#include "core/stats.h"
#include "testing/scripted_server.h"
#include "client_test_util.h"

namespace frontier {
namespace {

Script PaperScript() {  // first token after 50 ms, then every 10 ms, every 5th event 3 tokens
  Script s;
  s.ttft = 50 * kMs;
  s.interval = 10 * kMs;
  s.events = 20;
  s.tokens_pattern = {1, 1, 1, 1, 3};
  return s;
}

// Stamp errors (client - server, ms) of every content event, checking counts.
std::vector<double> CompareWithServer(const ScriptedServer& server, const std::vector<RequestRecord>& recs) {
  std::vector<double> err;
  for (const auto& r : recs) {
    EXPECT_TRUE(r.ok) << r.id << ": " << r.failure << " " << r.failure_detail;
    testing::ServedRequest sr;
    EXPECT_TRUE(server.Find("frontier-" + std::to_string(r.id), &sr)) << r.id;
    EXPECT_EQ(r.events.size(), sr.emissions.size()) << r.id;
    EXPECT_LE(r.sent_ns, sr.received_ns) << "stamped sent after the server had the request";
    if (!r.events.empty()) {
      EXPECT_LE(r.events.back().t_ns, r.end_ns);
    }
    for (size_t i = 0; i < std::min(r.events.size(), sr.emissions.size()); ++i) {
      EXPECT_EQ(r.events[i].tokens, sr.emissions[i].tokens) << r.id << " event " << i;
      EXPECT_GT(r.events[i].t_ns, sr.emissions[i].t_ns) << "stamped before the server wrote it";
      if (i > 0) {
        EXPECT_GE(r.events[i].t_ns, r.events[i - 1].t_ns) << "stamps out of order";
      }
      err.push_back(NanosToMillis(r.events[i].t_ns - sr.emissions[i].t_ns));
    }
  }
  return err;
}

TEST(ClientIntegrationTest, TimestampsAndTokensAtConcurrency1) {
  auto server = StartServer([](const testing::RequestInfo&) { return PaperScript(); });
  ClientOptions o;
  o.base_url = server->base_url();
  o.model = "m";
  auto recs = RunRequests(o, 4, 1);
  std::vector<double> err = CompareWithServer(*server, recs);
  ASSERT_EQ(err.size(), 80u);
  std::printf("concurrency 1: stamp error median %.3f ms, max %.3f ms\n", Median(err),
              *std::max_element(err.begin(), err.end()));
  for (const auto& r : recs) {
    EXPECT_TRUE(r.usage_reported);
    EXPECT_EQ(r.output_tokens, 28);  // 4 x (1+1+1+1+3)
    EXPECT_EQ(r.prompt_tokens, 8);
    EXPECT_EQ(r.http_status, 200);
    // TTFT: the server waits 50 ms after reading the request.
    EXPECT_GE(NanosToMillis(r.first_token_ns - r.sent_ns), 50.0);
  }
  EXPECT_EQ(recs[0].events[4].tokens, 3);
}

TEST(ClientIntegrationTest, TimestampsAndTokensAt256Streams) {
  auto server = StartServer([](const testing::RequestInfo&) { return PaperScript(); });
  ClientOptions o;
  o.base_url = server->base_url();
  auto recs = RunRequests(o, 256, 256);
  std::vector<double> err = CompareWithServer(*server, recs);
  ASSERT_EQ(err.size(), 256u * 20u);
  std::printf("256 streams: stamp error median %.3f ms, p99 %.3f ms\n", Median(err), Percentile(err, 99));
  for (const auto& r : recs) EXPECT_EQ(r.output_tokens, 28);
  EXPECT_GE(server->max_connections(), 200);  // really concurrent streams
}

TEST(ClientIntegrationTest, ChatRoleChunkIsNotTheFirstToken) {
  auto server = StartServer([](const testing::RequestInfo&) { return PaperScript(); });
  ClientOptions o;
  o.base_url = server->base_url();
  o.endpoint = "/v1/chat/completions";
  auto c = StreamClient::Create(o);
  ASSERT_TRUE(c.ok());
  client::StreamRequest r;
  r.prompt_text = "hello there";
  r.max_tokens = 28;
  (*c)->Start(r);
  RequestRecord rec;
  bool done = false;
  while (!done) (*c)->Poll(SteadyClock::MonotonicNow() + 100 * kMs, [&](RequestRecord&& x) { rec = std::move(x); done = true; });
  ASSERT_TRUE(rec.ok) << rec.failure_detail;
  EXPECT_EQ(rec.events.size(), 20u);
  EXPECT_GE(NanosToMillis(rec.first_token_ns - rec.sent_ns), 50.0);  // not the role chunk at ~0 ms
  EXPECT_EQ((*c)->served_model(), "scripted-model");
  auto served = server->Served();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_NE(served[0].request.body.find("\"messages\""), std::string::npos);
}

TEST(ClientIntegrationTest, WithoutUsageTokensAreCountedFromEvents) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = PaperScript();
    s.usage_continuous = false;
    s.usage_final = false;
    s.ttft = s.interval = kMs;
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  o.usage = client::UsageMode::kOff;
  auto recs = RunRequests(o, 2, 2);
  for (const auto& r : recs) {
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.usage_reported);
    EXPECT_EQ(r.output_tokens, 20);  // one per event: the multi-token events are invisible
  }
  auto served = server->Served();
  ASSERT_FALSE(served.empty());
  EXPECT_EQ(served[0].request.body.find("stream_options"), std::string::npos);
}

TEST(ClientIntegrationTest, FinalUsageGivesExactTotals) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = PaperScript();
    s.usage_continuous = false;
    s.ttft = s.interval = kMs;
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  o.usage = client::UsageMode::kFinal;
  auto recs = RunRequests(o, 1, 1);
  ASSERT_TRUE(recs[0].ok);
  EXPECT_TRUE(recs[0].usage_reported);
  EXPECT_EQ(recs[0].output_tokens, 28);
  EXPECT_EQ(recs[0].events.size(), 20u);
}

TEST(ClientIntegrationTest, CrlfKeepalivesAndBatchedWrites) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = PaperScript();
    s.crlf = true;
    s.keepalive_comments = true;
    s.events_per_write = 4;
    s.ttft = s.interval = kMs;
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  auto recs = RunRequests(o, 3, 3);
  std::vector<double> err = CompareWithServer(*server, recs);
  EXPECT_EQ(err.size(), 60u);
  // Four events per write share one read: equal timestamps within each group.
  EXPECT_EQ(recs[0].events[0].t_ns, recs[0].events[3].t_ns);
}

TEST(ClientIntegrationTest, SendsKeyHeadersAndExtraBody) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = s.interval = kMs;
    s.events = 2;
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url() + "/";
  o.model = "my-model";
  o.api_key = "sk-test";
  o.headers = {"X-Team: perf"};
  o.extra_body = R"({"top_k": 5, "temperature": 0.5})";
  auto recs = RunRequests(o, 1, 1);
  ASSERT_TRUE(recs[0].ok);
  auto served = server->Served();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0].request.path, "/v1/completions");
  EXPECT_EQ(served[0].request.Header("authorization"), "Bearer sk-test");
  EXPECT_EQ(served[0].request.Header("x-team"), "perf");
  EXPECT_EQ(served[0].request.Header("x-request-id"), "frontier-0");
  const std::string& body = served[0].request.body;
  EXPECT_NE(body.find("\"top_k\":5"), std::string::npos);
  EXPECT_NE(body.find("\"temperature\":0.5"), std::string::npos);
  EXPECT_NE(body.find("\"model\":\"my-model\""), std::string::npos);
  EXPECT_NE(body.find("\"ignore_eos\":true"), std::string::npos);
}

TEST(ClientIntegrationTest, LlamaCppNativeStreamCountsEveryTokenAndKeepsTimings) {
  auto server = StartServer([](const testing::RequestInfo&) { return PaperScript(); });
  ClientOptions o;
  o.base_url = server->base_url();
  o.endpoint = "/completion";
  auto recs = RunRequests(o, 3, 3);
  std::vector<double> err = CompareWithServer(*server, recs);
  EXPECT_EQ(err.size(), 60u);
  for (const auto& r : recs) {
    EXPECT_TRUE(r.usage_reported);    // tokens_predicted in every chunk
    EXPECT_EQ(r.output_tokens, 28);   // the 3-token events counted as 3
    EXPECT_EQ(r.prompt_tokens, 8);    // tokens_evaluated
    ASSERT_EQ(r.events.size(), 20u);
    EXPECT_EQ(r.events[4].tokens, 3);
    // The stop chunk's timings: the script's 50 ms to the first token, 19 gaps of 10 ms after it.
    EXPECT_EQ(r.server_timings.prompt_n, 8);
    EXPECT_DOUBLE_EQ(r.server_timings.prompt_ms, 50.0);
    EXPECT_EQ(r.server_timings.predicted_n, 28);
    EXPECT_DOUBLE_EQ(r.server_timings.predicted_ms, 190.0);
    EXPECT_GE(NanosToMillis(r.first_token_ns - r.sent_ns), r.server_timings.prompt_ms);
  }
  auto served = server->Served();
  ASSERT_FALSE(served.empty());
  const auto body = nlohmann::json::parse(served[0].request.body);
  EXPECT_EQ(body["n_predict"], 32);
  EXPECT_EQ(body["prompt"].size(), 8u);
  EXPECT_FALSE(body.contains("stream_options"));
}

TEST(ClientIntegrationTest, LlamaCppNativeErrorFieldKeepsTheMessage) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = PaperScript();
    s.ttft = s.interval = kMs;
    s.fault = Fault::kErrorField;
    s.fault_after = 2;
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  o.endpoint = "/completion";
  auto recs = RunRequests(o, 1, 1);
  EXPECT_FALSE(recs[0].ok);
  EXPECT_EQ(recs[0].failure, "http_status");
  EXPECT_NE(recs[0].failure_detail.find("out of the vocabulary"), std::string::npos) << recs[0].failure_detail;
  EXPECT_EQ(recs[0].events.size(), 2u);
}

// Every stamp is a reading of the client's clock: with a ManualClock moved
// between the send and the Poll that reads the whole response, the request
// is stamped sent at the first time and every event, the first token and
// the end at the second, so the record's latencies are exactly the clock's.
TEST(ClientIntegrationTest, StampsAreTheClocksReadings) {
  Script fast;
  fast.ttft = fast.interval = kMs;
  fast.events = 5;
  auto server = StartServer([fast](const testing::RequestInfo&) { return fast; });
  ClientOptions o;
  o.base_url = server->base_url();
  const Nanos t0 = 7 * kNanosPerSecond;
  ManualClock clock(t0);
  auto c = StreamClient::Create(o, clock);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  client::StreamRequest req;
  req.max_tokens = 32;
  req.prompt_text = "hello";
  (*c)->Start(req);
  const Nanos t1 = t0 + 250 * kMs;
  clock.Set(t1);
  // The clock stands still: Poll's deadline is never reached, so it returns
  // when the request ends (the server ends it within milliseconds).
  std::vector<RequestRecord> recs;
  (*c)->Poll(t1 + kNanosPerSecond, [&](RequestRecord&& r) { recs.push_back(std::move(r)); });
  ASSERT_EQ(recs.size(), 1u);
  const RequestRecord& r = recs[0];
  EXPECT_TRUE(r.ok) << r.failure << ": " << r.failure_detail;
  EXPECT_EQ(r.sent_ns, t0);
  EXPECT_EQ(r.first_token_ns, t1);
  EXPECT_EQ(r.end_ns, t1);
  ASSERT_EQ(r.events.size(), 5u);
  for (const auto& e : r.events) EXPECT_EQ(e.t_ns, t1);
}

TEST(ClientIntegrationTest, BadOptionsNameTheFlag) {
  ClientOptions o;
  o.base_url = "ftp://x";
  EXPECT_NE(StreamClient::Create(o).status().message().find("--base-url"), std::string::npos);
  o.base_url = "http://127.0.0.1:1";
  o.endpoint = "/v1/embeddings";
  EXPECT_NE(StreamClient::Create(o).status().message().find("--endpoint"), std::string::npos);
  o.endpoint = "/v1/completions";
  o.headers = {"no colon"};
  EXPECT_NE(StreamClient::Create(o).status().message().find("--header"), std::string::npos);
  o.headers = {};
  o.extra_body = "[]";
  EXPECT_NE(StreamClient::Create(o).status().message().find("--extra-body"), std::string::npos);
}

}  // namespace
}  // namespace frontier
