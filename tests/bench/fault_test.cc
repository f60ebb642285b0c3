// One test per fault: every request ends, failed with the right code and the
// detail kept; nothing crashes or hangs.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client_test_util.h"

namespace frontier {
namespace {

// A server with one faulty script, one request sent; returns its record.
RequestRecord OneFaulty(Script s, ClientOptions o = {}) {
  auto server = StartServer([s](const testing::RequestInfo&) { return s; });
  o.base_url = server->base_url();
  auto recs = RunRequests(o, 1, 1, 32, 5 * kNanosPerSecond);
  EXPECT_EQ(recs.size(), 1u);
  return recs.empty() ? RequestRecord{} : recs[0];
}

Script Fast(Fault f, int after = 3) {
  Script s;
  s.ttft = s.interval = kMs;
  s.events = 10;
  s.fault = f;
  s.fault_after = after;
  return s;
}

// A port on 127.0.0.1 where nothing listens.
int ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(FaultTest, ConnectionRefused) {
  ClientOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(ClosedPort());
  auto recs = RunRequests(o, 3, 3);
  for (const auto& r : recs) {
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.failure, failure::kConnect);
    EXPECT_FALSE(r.failure_detail.empty());
    EXPECT_EQ(r.http_status, 0);
  }
}

TEST(FaultTest, ConnectionResetBeforeAResponse) {
  auto r = OneFaulty(Fast(Fault::kReset));
  EXPECT_FALSE(r.ok);
  // Reset after connecting: no response at all.
  EXPECT_TRUE(r.failure == failure::kClosedMidStream || r.failure == failure::kConnect) << r.failure;
  EXPECT_FALSE(r.failure_detail.empty());
}

TEST(FaultTest, Http500KeepsStatusAndBody) {
  Script s = Fast(Fault::kHttpError);
  s.http_status = 503;
  s.error_body = "{\"error\": \"overloaded\"}";
  auto r = OneFaulty(s);
  EXPECT_EQ(r.failure, failure::kHttpStatus);
  EXPECT_EQ(r.http_status, 503);
  EXPECT_EQ(r.failure_detail, "HTTP 503: {\"error\": \"overloaded\"}");
}

TEST(FaultTest, Http4xx) {
  Script s = Fast(Fault::kHttpError);
  s.http_status = 400;
  s.error_body = "bad model";
  auto r = OneFaulty(s);
  EXPECT_EQ(r.failure, failure::kHttpStatus);
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.failure_detail.find("bad model"), std::string::npos);
}

TEST(FaultTest, Http429IsCountedApart) {
  Script s = Fast(Fault::kHttpError);
  s.http_status = 429;
  s.error_body = "slow down";
  auto r = OneFaulty(s);
  EXPECT_EQ(r.failure, failure::kRateLimited);
  EXPECT_EQ(r.http_status, 429);
  EXPECT_NE(r.failure_detail.find("slow down"), std::string::npos);
}

TEST(FaultTest, ClosedMidStream) {
  auto r = OneFaulty(Fast(Fault::kCloseMidStream, 4));
  EXPECT_EQ(r.failure, failure::kClosedMidStream);
  EXPECT_EQ(r.events.size(), 4u);  // what arrived is kept
  EXPECT_EQ(r.http_status, 200);
}

TEST(FaultTest, MalformedSse) {
  auto r = OneFaulty(Fast(Fault::kMalformedSse));
  EXPECT_EQ(r.failure, failure::kMalformed);
  EXPECT_NE(r.failure_detail.find("SSE"), std::string::npos);
}

TEST(FaultTest, MalformedJson) {
  auto r = OneFaulty(Fast(Fault::kMalformedJson));
  EXPECT_EQ(r.failure, failure::kMalformed);
  EXPECT_NE(r.failure_detail.find("JSON"), std::string::npos);
  EXPECT_NE(r.failure_detail.find("unterminated"), std::string::npos);  // the bad payload is quoted
}

TEST(FaultTest, ErrorEventInTheStream) {
  auto r = OneFaulty(Fast(Fault::kErrorEvent));
  EXPECT_EQ(r.failure, failure::kHttpStatus);
  EXPECT_NE(r.failure_detail.find("engine died"), std::string::npos);
}

TEST(FaultTest, ZeroTokens) {
  auto r = OneFaulty(Fast(Fault::kZeroTokens));
  EXPECT_EQ(r.failure, failure::kNoTokens);
  EXPECT_TRUE(r.events.empty());
}

// A clock that runs with the steady clock plus an offset the test moves:
// real waits still pass (so the client reads what the server sends), and a
// Jump is time passing at once. Read and moved on the test's thread only.
class JumpClock final : public Clock {
 public:
  Nanos Now() const override { return SteadyClock::MonotonicNow() + offset_; }
  void Jump(Nanos d) { offset_ += d; }

 private:
  Nanos offset_ = 0;
};

// A client on `clock` with one request started (id 0); null if it cannot be made.
std::unique_ptr<StreamClient> StartOne(const ClientOptions& o, const Clock& clock) {
  auto c = StreamClient::Create(o, clock);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return nullptr;
  client::StreamRequest req;
  req.max_tokens = 32;
  req.prompt_text = "hello";
  (*c)->Start(req);
  return std::move(*c);
}

// The stream stalls for good: only the timeout can end it, and it ends it on
// the client's clock. A ManualClock makes that exact: not at the timeout
// itself, at the first deadline scan after it (the scan runs every 2 ms of
// clock time), with no real waiting for it.
TEST(FaultTest, FirstTokenTimeout) {
  auto server = StartServer([](const testing::RequestInfo&) { return Fast(Fault::kStall, 0); });
  ClientOptions o;
  o.base_url = server->base_url();
  o.first_token_timeout = 100 * kMs;
  const Nanos t0 = 1000 * kNanosPerSecond;
  ManualClock clock(t0);
  auto c = StartOne(o, clock);
  ASSERT_TRUE(c);
  std::vector<RequestRecord> recs;
  auto keep = [&](RequestRecord&& r) { recs.push_back(std::move(r)); };
  c->Poll(clock.Now(), keep);  // scans at t0: the next scan is due at t0 + 2 ms
  clock.Set(t0 + 100 * kMs);      // the timeout reached, not passed
  c->Poll(clock.Now(), keep);
  EXPECT_TRUE(recs.empty());
  clock.Set(t0 + 101 * kMs);      // passed, but before the next scan
  c->Poll(clock.Now(), keep);
  EXPECT_TRUE(recs.empty());
  EXPECT_EQ(c->InFlight(), 1u);
  clock.Set(t0 + 102 * kMs);
  c->Poll(clock.Now(), keep);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].failure, failure::kFirstTokenTimeout);
  EXPECT_EQ(recs[0].sent_ns, t0);
  EXPECT_EQ(recs[0].end_ns, t0 + 102 * kMs);
  EXPECT_EQ(c->InFlight(), 0u);
}

// The stream stalls after 3 tokens: the total timeout ends it, not the
// first-token timeout, which the first token met. The client's clock jumps
// past the total timeout once the 3 tokens are in, so nothing waits for it.
TEST(FaultTest, TotalTimeout) {
  auto server = StartServer([](const testing::RequestInfo&) { return Fast(Fault::kStall, 3); });
  ClientOptions o;
  o.base_url = server->base_url();
  o.first_token_timeout = 1000 * kMs;
  o.total_timeout = 1500 * kMs;
  JumpClock clock;
  auto c = StartOne(o, clock);
  ASSERT_TRUE(c);
  std::vector<RequestRecord> recs;
  auto keep = [&](RequestRecord&& r) { recs.push_back(std::move(r)); };
  // The client reads the 3 tokens (the real wait gives up after 20 s should they never come).
  const Nanos give_up = SteadyClock::MonotonicNow() + 20 * kNanosPerSecond;
  while (c->events() < 3 && recs.empty() && SteadyClock::MonotonicNow() < give_up)
    c->Poll(clock.Now() + 5 * kMs, keep);
  ASSERT_TRUE(recs.empty()) << recs[0].failure << ": " << recs[0].failure_detail;
  ASSERT_GE(c->events(), 3);
  clock.Jump(1500 * kMs);
  while (recs.empty() && SteadyClock::MonotonicNow() < give_up) c->Poll(clock.Now() + 5 * kMs, keep);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].failure, failure::kTotalTimeout);
  EXPECT_EQ(recs[0].events.size(), 3u);
  EXPECT_GT(recs[0].end_ns - recs[0].sent_ns, 1500 * kMs);
}

TEST(FaultTest, ConnectTimeout) {
  // A listener that never accepts, its queue filled: further SYNs are dropped.
  int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(::listen(lfd, 0), 0);
  socklen_t len = sizeof(a);
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  std::vector<int> fillers;
  for (int i = 0; i < 8; ++i) {
    int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    (void)::connect(f, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    fillers.push_back(f);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ClientOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  o.connect_timeout = 200 * kMs;
  auto recs = RunRequests(o, 1, 1, 32, 5 * kNanosPerSecond);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].failure, failure::kConnectTimeout) << recs[0].failure_detail;
  for (int f : fillers) ::close(f);
  ::close(lfd);
}

TEST(FaultTest, TlsHandshakeFailure) {
  // An https client against a plain-text peer: the handshake fails.
  int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(::listen(lfd, 4), 0);
  socklen_t len = sizeof(a);
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  std::thread peer([lfd] {
    int c = ::accept(lfd, nullptr, nullptr);
    if (c < 0) return;
    const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    (void)::send(c, reply, sizeof(reply) - 1, MSG_NOSIGNAL);
    ::usleep(100000);
    ::close(c);
  });
  ClientOptions o;
  o.base_url = "https://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  auto recs = RunRequests(o, 1, 1, 32, 5 * kNanosPerSecond);
  peer.join();
  ::close(lfd);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].failure, failure::kTls) << recs[0].failure_detail;
}

TEST(FaultTest, ErrorStatusesWithAnEmptyBodyKeepTheirStatus) {
  // 503 / 429 / 302 with Content-Length: 0 are answers, not a cut stream.
  for (int status : {503, 429, 302}) {
    Script s = Fast(Fault::kHttpError);
    s.http_status = status;
    s.error_body = "";
    auto r = OneFaulty(s);
    EXPECT_EQ(r.failure, status == 429 ? failure::kRateLimited : failure::kHttpStatus) << status;
    EXPECT_EQ(r.http_status, status);
    EXPECT_EQ(r.failure_detail, "HTTP " + std::to_string(status) + ": ");
  }
}

TEST(FaultTest, AHeadThenCloseOnAReusedConnectionIsClosedMidStream) {
  // The first request streams normally and leaves its connection alive; the
  // second, sent on that connection, gets a 200 head and then the close.
  std::atomic<int> n{0};
  auto server = StartServer([&n](const testing::RequestInfo&) {
    return Fast(n.fetch_add(1) == 0 ? Fault::kNone : Fault::kCloseAfterHead);
  });
  ClientOptions o;
  o.base_url = server->base_url();
  auto recs = RunRequests(o, 2, 1, 32, 5 * kNanosPerSecond);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_TRUE(recs[0].ok) << recs[0].failure << " " << recs[0].failure_detail;
  EXPECT_EQ(recs[1].failure, failure::kClosedMidStream) << recs[1].failure_detail;
  EXPECT_EQ(recs[1].http_status, 200);
  EXPECT_EQ(server->max_connections(), 1);  // it really was the reused connection
}

TEST(FaultTest, LlamaCppErrorFieldIsTheFailureInTheServersWords) {
  auto r = OneFaulty(Fast(Fault::kErrorField, 2));
  EXPECT_EQ(r.failure, failure::kHttpStatus);
  EXPECT_EQ(r.failure_detail, "error event in the stream: the prompt has a token id out of the vocabulary");
  EXPECT_EQ(r.events.size(), 2u);
}

TEST(FaultTest, UsageThatContradictsTheEventsIsFlaggedNotTrusted) {
  Script s = Fast(Fault::kNone);
  s.usage_completion_tokens = 1;  // claims one token while sending ten content events
  auto r = OneFaulty(s);
  EXPECT_TRUE(r.ok) << r.failure_detail;
  EXPECT_FALSE(r.usage_reported);
  EXPECT_EQ(r.output_tokens, 10);  // counted from the events received
  EXPECT_FALSE(r.usage_conflict.empty());
  for (const auto& e : r.events) EXPECT_EQ(e.tokens, 1);
  // Usage that agrees is trusted and leaves no flag.
  auto good = OneFaulty(Fast(Fault::kNone));
  EXPECT_TRUE(good.usage_reported);
  EXPECT_TRUE(good.usage_conflict.empty());
  EXPECT_EQ(good.output_tokens, 10);
}

TEST(FaultTest, DnsAndOtherCurlCodesMapToFailures) {
  // Name resolution cannot be failed locally without sending a query off the
  // machine, so the mapping is checked directly.
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_COULDNT_RESOLVE_HOST, false), failure::kDns);
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_COULDNT_CONNECT, false), failure::kConnect);
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_PEER_FAILED_VERIFICATION, true), failure::kTls);
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_OPERATION_TIMEDOUT, false), failure::kConnectTimeout);
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_OPERATION_TIMEDOUT, true), failure::kTotalTimeout);
  EXPECT_STREQ(client::FailureForCurlCode(CURLE_PARTIAL_FILE, true), failure::kClosedMidStream);
}

TEST(FaultTest, MixedFaultsAllEndAndHealthyOnesSucceed) {
  // Every 3rd request fails differently; the others are unaffected.
  auto server = StartServer([](const testing::RequestInfo& info) {
    const std::string id = info.Header("x-request-id");
    const int n = std::stoi(id.substr(id.find('-') + 1));
    Script s = Fast(Fault::kNone);
    if (n % 3 == 1) s.fault = Fault::kCloseMidStream;
    if (n % 3 == 2) {
      s.fault = Fault::kHttpError;
      s.http_status = 500;
    }
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  auto recs = RunRequests(o, 30, 8);
  for (const auto& r : recs) {
    if (r.id % 3 == 0) {
      EXPECT_TRUE(r.ok) << r.id << " " << r.failure << " " << r.failure_detail;
      EXPECT_EQ(r.output_tokens, 10);
    } else if (r.id % 3 == 1) {
      EXPECT_EQ(r.failure, failure::kClosedMidStream) << r.id;
    } else {
      EXPECT_EQ(r.failure, failure::kHttpStatus) << r.id;
    }
  }
}

}  // namespace
}  // namespace frontier
