// Bad input, injected faults, client disconnects and /metrics: the server
// answers each as documented and keeps serving afterwards.
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

json ErrorOf(const HttpReply& r) {
  const json j = json::parse(r.body);
  EXPECT_TRUE(j.contains("error")) << r.body;
  EXPECT_TRUE(j["error"]["message"].is_string());
  EXPECT_TRUE(j["error"]["type"].is_string());
  return j["error"];
}

TEST(BadInput, EachGetsAnOpenAiErrorAndTheServerKeepsServing) {
  ServeOptions o = TestOptions();
  o.max_body_bytes = 4096;
  auto server = StartFixed(1, 1, 1, o, /*context=*/64);
  ASSERT_TRUE(server);
  const int port = server->port();
  struct Case {
    std::string raw;
    int status;
    std::string message_has;
  };
  const std::string big(5000, 'a');
  const std::string long_prompt = "[" + std::string(200, '1').replace(0, 200, "") + [] {
    std::string s;
    for (int i = 0; i < 70; ++i) s += (i ? ",7" : "7");
    return s;
  }() + "]";
  const Case cases[] = {
      {FormatPost("/v1/completions", "{\"prompt\": \"a\","), 400, "not valid JSON"},
      {FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":"5"})"), 400, "max_tokens"},
      {FormatPost("/v1/completions", R"({"max_tokens":5})"), 400, "prompt"},
      {FormatPost("/v1/chat/completions", R"({"model":"test-model"})"), 400, "messages"},
      {FormatPost("/v1/completions", R"({"prompt":"a","model":"gpt-9"})"), 404, "gpt-9"},
      {FormatPost("/v1/completions", "{\"prompt\":\"" + big + "\"}"), 413, "4096"},
      {FormatPost("/v1/completions", "{\"prompt\":" + long_prompt + "}"), 400, "maximum context length is 64"},
      {FormatPost("/v1/completions", R"({"prompt":[1,2,3],"max_tokens":62})"), 400, "maximum context length is 64"},
      {FormatPost("/v1/completions", R"({"prompt":[1,2,3],"min_tokens":62})"), 400, "maximum context length is 64"},
      {FormatPost("/v1/nothing", "{}"), 404, "/v1/nothing"},
      {FormatGet("/v1/completions"), 405, "POST"},
      {"BREW /pot HTCPCP/1.0\r\n\r\n", 505, "HTTP"},
      {"nonsense\r\n\r\n", 400, "request line"},
  };
  for (const Case& c : cases) {
    const HttpReply r = Exchange(port, c.raw);
    EXPECT_EQ(r.status, c.status) << c.raw.substr(0, 80) << " -> " << r.body;
    const json e = ErrorOf(r);
    EXPECT_NE(e["message"].get<std::string>().find(c.message_has), std::string::npos)
        << e["message"] << " lacks " << c.message_has;
    ExpectHealthy(port);
  }
  const HttpReply nf = Exchange(port, FormatPost("/v1/completions", R"({"prompt":"a","model":"gpt-9"})"));
  EXPECT_EQ(ErrorOf(nf)["code"], "model_not_found");
  // A prompt that exactly fills the context with max_tokens is accepted.
  const HttpReply ok = Post(port, "/v1/completions", R"({"prompt":[1,2,3],"max_tokens":61})");
  EXPECT_EQ(ok.status, 200);
}

TEST(BadInput, GarbageHalfRequestsAndSlowClientsNeverTakeItDown) {
  auto server = StartFixed(1, 1);
  ASSERT_TRUE(server);
  const int port = server->port();
  std::mt19937 rng(3);
  const std::string valid = FormatPost("/v1/completions", R"({"prompt":"a b c","max_tokens":3})");
  for (int i = 0; i < 100; ++i) {
    auto c = ProbeConnection::Connect("127.0.0.1", port);
    ASSERT_TRUE(c.ok());
    std::string bytes;
    if (i % 3 == 0) {  // random bytes
      const size_t n = rng() % 300;
      for (size_t k = 0; k < n; ++k) bytes.push_back(static_cast<char>(rng() % 256));
      bytes += "\r\n\r\n";
    } else if (i % 3 == 1) {  // a valid request cut anywhere, then the client leaves
      bytes = valid.substr(0, rng() % valid.size());
    } else {  // a valid request with one byte flipped
      bytes = valid;
      bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
    }
    (void)c->SendRaw(bytes);
    if (i % 3 != 1) (void)c->ReadReply(100 * kNanosPerMilli);  // an answer, a close, or a wait for more
  }
  ExpectHealthy(port);
  // One byte at a time still makes a request.
  auto c = ProbeConnection::Connect("127.0.0.1", port);
  ASSERT_TRUE(c.ok());
  for (char ch : valid) ASSERT_TRUE(c->SendRaw(std::string(1, ch)).ok());
  auto r = c->ReadReply(5 * kNanosPerSecond);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["usage"]["completion_tokens"], 3);
  EXPECT_EQ(WaitSnapshot(*server, [](const ServerSnapshot& x) { return x.open_connections <= 1; }).open_connections, 1);
}

TEST(BadInput, OversizedBodySentWholeStillReads413) {
  ServeOptions o = TestOptions();
  o.max_body_bytes = 4096;
  auto server = StartFixed(1, 1, 1, o);
  ASSERT_TRUE(server);
  auto c = ProbeConnection::Connect("127.0.0.1", server->port());
  ASSERT_TRUE(c.ok());
  // A client that sends its whole 32 MiB body (more than the socket buffers
  // hold) without waiting (no Expect): the server answers at the head,
  // half-closes and discards the rest, so the client's send completes and it
  // reads a 413 rather than a connection reset.
  const std::string body = "{\"prompt\":\"" + std::string(32 << 20, 'a') + "\"}";
  ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", body)).ok());
  auto r = c->ReadReply(5 * kNanosPerSecond);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(ErrorOf(*r)["message"].get<std::string>().find("4096"), std::string::npos);
  ExpectHealthy(server->port());
}

TEST(Faults, RateLimitAndErrorAtRateOne) {
  ServeOptions o = TestOptions();
  o.faults.rate_limit_rate = 1;
  auto s429 = StartFixed(1, 1, 1, o);
  ASSERT_TRUE(s429);
  const HttpReply r = Post(s429->port(), "/v1/completions", R"({"prompt":"a","max_tokens":2,"stream":true})");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.headers.at("retry-after"), "1");
  EXPECT_EQ(ErrorOf(r)["code"], "rate_limit_exceeded");
  ExpectHealthy(s429->port());

  o.faults.rate_limit_rate = 0;
  o.faults.error_rate = 1;
  auto s500 = StartFixed(1, 1, 1, o);
  ASSERT_TRUE(s500);
  const HttpReply e = Post(s500->port(), "/v1/completions", R"({"prompt":"a","max_tokens":2})");
  EXPECT_EQ(e.status, 500);
  EXPECT_EQ(ErrorOf(e)["type"], "server_error");
  ExpectHealthy(s500->port());
}

// Which of 200 requests got a fault, for a server with this option.
std::vector<int> FaultPattern(ServeOptions o) {
  auto s = StartFixed(0, 0, 1, o);
  std::vector<int> out;
  for (int i = 0; i < 200; ++i)
    out.push_back(Post(s->port(), "/v1/completions", R"({"prompt":"a","max_tokens":1})").status);
  return out;
}

TEST(Faults, SeededRatesAreReproducible) {
  ServeOptions o = TestOptions();
  o.record_traces = false;
  o.faults.rate_limit_rate = 0.3;
  o.faults.seed = 11;
  const auto a = FaultPattern(o);
  const auto b = FaultPattern(o);
  EXPECT_EQ(a, b);
  const auto n429 = std::count(a.begin(), a.end(), 429);
  EXPECT_GE(n429, 35);  // 60 expected; binomial sd 6.5
  EXPECT_LE(n429, 85);
  EXPECT_EQ(std::count(a.begin(), a.end(), 200) + n429, 200);
  o.faults.seed = 12;
  EXPECT_NE(FaultPattern(o), a);
}

TEST(Faults, DisconnectMidStream) {
  ServeOptions o = TestOptions();
  o.faults.disconnect_rate = 1;
  auto s = StartFixed(1, 2, 1, o);
  ASSERT_TRUE(s);
  const HttpReply r = Post(s->port(), "/v1/completions", R"({"prompt":"a","max_tokens":20,"stream":true})");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.closed_early);
  EXPECT_FALSE(EndsWithDone(r));
  EXPECT_LT(r.events.size(), 20u);
  const auto traces = WaitTraces(*s, 1);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].finish_reason, "abort");
  EXPECT_EQ(WaitSnapshot(*s, [](const ServerSnapshot& x) { return x.active_requests == 0; }).active_requests, 0);
  ExpectHealthy(s->port());
}

TEST(Faults, StallDelaysTheRestOfTheStream) {
  ServeOptions o = TestOptions();
  o.faults.stall_ms = 300;
  auto s = StartFixed(10, 10, 1, o);
  ASSERT_TRUE(s);
  const auto res = RunStreams("127.0.0.1", s->port(),
                              {{"/v1/completions", R"({"prompt":"a","max_tokens":10,"stream":true})"}}, {});
  ASSERT_EQ(res[0].reply.status, 200);
  std::vector<Nanos> t;
  for (const auto& e : res[0].reply.events)
    if (e.has_content) t.push_back(e.t_ns);
  ASSERT_EQ(t.size(), 10u);
  int stalls = 0;
  for (size_t i = 1; i < t.size(); ++i) stalls += (t[i] - t[i - 1]) >= MillisToNanos(300);
  const bool first_stalled = t[0] - res[0].sent_ns >= MillisToNanos(300);
  EXPECT_EQ(stalls + (first_stalled ? 1 : 0), 1);
  EXPECT_GE(NanosToMillis(t.back() - res[0].sent_ns), 10 + 9 * 10 + 300);
  const auto traces = WaitTraces(*s, 1);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].finish_reason, "length");
  ExpectHealthy(s->port());
}

TEST(Disconnect, ClientLeavingFreesItsSlotAtOnce) {
  // The next token is a minute away: a slot freed within the wait below was
  // freed by the hang-up itself, not when the next write failed.
  auto s = StartFixed(1, 60'000);
  ASSERT_TRUE(s);
  {
    auto c = ProbeConnection::Connect("127.0.0.1", s->port());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":100000,"stream":true})")).ok());
    const Nanos until = SteadyClock::MonotonicNow() + 5 * kNanosPerSecond;
    while (s->Snapshot().engine_running != 1 && SteadyClock::MonotonicNow() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(s->Snapshot().engine_running, 1);
  }  // the client closes its socket here
  const Nanos closed = SteadyClock::MonotonicNow();
  while (s->Snapshot().engine_running != 0 && SteadyClock::MonotonicNow() < closed + 5 * kNanosPerSecond)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(s->Snapshot().engine_running, 0);
  EXPECT_EQ(s->Snapshot().active_requests, 0);
  const auto traces = WaitTraces(*s, 1);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].finish_reason, "abort");
  ExpectHealthy(s->port());
}

TEST(Shutdown, DrainFinishesAdmittedStreamsAndRefusesNewConnections) {
  auto s = StartFixed(5, 10);
  ASSERT_TRUE(s);
  const int port = s->port();
  auto c = ProbeConnection::Connect("127.0.0.1", port);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":30,"stream":true})")).ok());
  WaitSnapshot(*s, [](const ServerSnapshot& x) { return x.active_requests == 1; });
  s->Drain(5 * kNanosPerSecond);
  auto r = c->ReadReply(5 * kNanosPerSecond);  // the admitted stream runs to its end
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(EndsWithDone(*r));
  EXPECT_EQ(CountTextTokens(StreamText(*r)), 30);
  s->Wait();  // then the server stops by itself
  EXPECT_FALSE(ProbeConnection::Connect("127.0.0.1", port).ok());
}

// The drain's deadline is on the server's clock: the server still serves
// after Drain (a kept-alive connection gets its answer) until the clock
// jumps past the grace, and then stops at its next pass (the stream's next
// token, 10 ms on), with the generation far from done. No waiting for it.
TEST(Shutdown, DrainGivesUpAtTheDeadline) {
  JumpClock clock;
  auto s = StartFixed(5, 10, 1, TestOptions(), 131072, clock);
  ASSERT_TRUE(s);
  auto c = ProbeConnection::Connect("127.0.0.1", s->port());
  ASSERT_TRUE(c.ok());
  auto kept = ProbeConnection::Connect("127.0.0.1", s->port());
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(kept->SendRaw(FormatGet("/health")).ok());  // accepted (and kept alive) before the drain
  ASSERT_TRUE(kept->ReadReply(10 * kNanosPerSecond).ok());
  ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":100000,"stream":true})")).ok());
  WaitSnapshot(*s, [](const ServerSnapshot& x) { return x.active_requests == 1; });
  s->Drain(60 * kNanosPerSecond);
  ASSERT_TRUE(kept->SendRaw(FormatGet("/health")).ok());
  auto health = kept->ReadReply(10 * kNanosPerSecond);  // not stopped: the deadline is a minute away
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(s->Snapshot().active_requests, 1);
  clock.Jump(60 * kNanosPerSecond);
  s->Wait();
  EXPECT_TRUE(c->WaitClosed(kNanosPerSecond));
}

// A small Prometheus text-format (0.0.4) checker: every sample line is
// name{labels} value, names and labels are well-formed, each family has TYPE
// before its samples, histogram buckets are cumulative and end at +Inf ==
// _count. Returns sample values by their full series text.
std::map<std::string, double> ParsePrometheus(const std::string& text) {
  static const std::regex kSample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*)?\})? (\S+)$)");
  static const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  std::map<std::string, std::string> types;
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  std::map<std::string, double> last_bucket;
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("#", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, m, kType)) << line;
      if (!m.empty()) types[m[1]] = m[2];
      continue;
    }
    EXPECT_TRUE(std::regex_match(line, m, kSample)) << line;
    if (m.empty()) continue;
    std::string name = m[1];
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string sfx = suffix;
      if (family.size() > sfx.size() && family.compare(family.size() - sfx.size(), sfx.size(), sfx) == 0 &&
          types.count(family.substr(0, family.size() - sfx.size())))
        family = family.substr(0, family.size() - sfx.size());
    }
    EXPECT_TRUE(types.count(family)) << "no TYPE before " << line;
    const std::string value = m[m.size() - 1];
    double v = 0;
    EXPECT_NO_THROW(v = std::stod(value)) << line;
    out[line.substr(0, line.rfind(' '))] = v;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "_bucket") == 0) {
      EXPECT_GE(v, last_bucket[family]) << "buckets must be cumulative: " << line;
      last_bucket[family] = v;
      if (line.find("le=\"+Inf\"") != std::string::npos) last_bucket[family] = 0;
    }
  }
  return out;
}

TEST(Metrics, PrometheusTextWithTrueCounts) {
  auto s = StartFixed(2, 1);
  ASSERT_TRUE(s);
  const int port = s->port();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(Post(port, "/v1/completions", R"({"prompt":"one two three","max_tokens":5,"stream":true})").status, 200);
  EXPECT_EQ(Post(port, "/v1/completions", R"({"prompt":"x","model":"nope"})").status, 404);
  const HttpReply r = Exchange(port, FormatGet("/metrics"));
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.headers.at("content-type").find("text/plain; version=0.0.4"), std::string::npos);
  const auto m = ParsePrometheus(r.body);
  const std::string ml = "{model_name=\"test-model\"}";
  EXPECT_EQ(m.at("vllm:prompt_tokens_total" + ml), 12);
  EXPECT_EQ(m.at("vllm:generation_tokens_total" + ml), 20);
  EXPECT_EQ(m.at("vllm:num_requests_running" + ml), 0);
  EXPECT_EQ(m.at("vllm:num_requests_waiting" + ml), 0);
  EXPECT_EQ(m.at("vllm:kv_cache_usage_perc" + ml), 0);
  EXPECT_EQ(m.at("vllm:time_to_first_token_seconds_count" + ml), 4);
  EXPECT_EQ(m.at("vllm:time_per_output_token_seconds_count" + ml), 4);
  EXPECT_EQ(m.at("vllm:time_to_first_token_seconds_bucket{model_name=\"test-model\",le=\"+Inf\"}"), 4);
  EXPECT_EQ(m.at("vllm:time_to_first_token_seconds_bucket{model_name=\"test-model\",le=\"0.001\"}"), 0);  // ttft 2 ms
  EXPECT_EQ(m.at("vllm:request_success_total{model_name=\"test-model\",finished_reason=\"length\"}"), 4);
  EXPECT_EQ(m.at("frontier_serve_http_responses_total{code=\"404\"}"), 1);
  EXPECT_EQ(m.at("frontier_serve_http_responses_total{code=\"200\"}"), 4);
  ExpectHealthy(port);
}

}  // namespace
}  // namespace frontier::serve::testing
