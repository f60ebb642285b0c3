// One client must not starve the others, on every frontier HTTP server: the
// dashboard and `frontier serve`, both handlers on net::HttpServer, pass the
// same tests: a pipelining flood that never reads, a slow reader, framing
// that is answered rather than hung, and the loop's limits (header and idle
// timeouts, the connection cap with eviction and 503).
//
// Every check is by order, counts and the server's own figures; timeouts are
// set short through the options and waited for with generous upper bounds,
// never asserted as wall-clock durations.
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "dashboard/server.h"
#include "dashboard/test_db.h"
#include "serve/fixed_timing.h"
#include "serve/server.h"
#include "testing/stream_probe.h"
#include "util/http_exchange.h"

namespace frontier {
namespace {

using testing::FormatGet;
using testing::FormatPost;
using testing::HttpReply;
using testing::ProbeConnection;
using testing_util::Exchange;

// A server under test, seen from outside.
class Target {
 public:
  virtual ~Target() = default;
  virtual int port() const = 0;
  // A cheap GET every server answers 200.
  virtual std::string path() const = 0;
  // Pipelined requests whose answers are far more than the kernel's socket
  // buffers hold (so the server must hold the rest back).
  virtual int FloodSize() const = 0;
  // Requests answered so far (the flood's and everyone's).
  virtual int64_t Served() = 0;
  // The most bytes one connection's output buffer held.
  int64_t PeakOutputBuffer() { return static_cast<int64_t>(Stats().peak_output_buffer); }
  // A request whose answer the server holds open (a stream) for far longer than a test.
  virtual std::string HoldingRequest() const = 0;
  // The HTTP loop's own figures.
  virtual net::HttpServerStats Stats() const = 0;
};

// The dashboard over the known database, with HTTP limits from the test.
class DashboardTarget : public Target {
 public:
  explicit DashboardTarget(net::HttpServerOptions http) {
    db_ = dashboard::testing::OpenKnownDb();
    EXPECT_TRUE(db_.writer && db_.reader);
    data_ = std::make_unique<dashboard::DashboardData>(*db_.reader, nullptr);
    api_ = std::make_unique<dashboard::Api>(*data_, dashboard::ApiOptions{db_.path, false, "test"});
    dashboard::ServerOptions o;
    o.port = 0;
    o.live_interval = 50 * kNanosPerMilli;
    o.http = http;
    auto s = dashboard::DashboardServer::Create(o, *api_);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return;
    server_ = std::move(*s);
    thread_ = std::thread([this] { (void)server_->Run(); });
  }
  ~DashboardTarget() override {
    if (server_) server_->RequestStop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const override { return server_->port(); }
  std::string path() const override { return "/api/meta"; }
  int FloodSize() const override { return 20'000; }  // about 1 KB each
  int64_t Served() override { return static_cast<int64_t>(server_->Stats().requests); }
  std::string HoldingRequest() const override { return FormatGet("/api/live/stream"); }
  net::HttpServerStats Stats() const override { return server_->Stats(); }

 private:
  dashboard::testing::KnownDb db_;
  std::unique_ptr<dashboard::DashboardData> data_;
  std::unique_ptr<dashboard::Api> api_;
  std::unique_ptr<dashboard::DashboardServer> server_;
  std::thread thread_;
};

// `frontier serve` with a fixed timing profile, with HTTP limits from the test.
class ServeTarget : public Target {
 public:
  explicit ServeTarget(net::HttpServerOptions http) {
    serve::ServeOptions o;
    o.port = 0;
    o.model_name = "test-model";
    o.http = http;
    serve::FixedProfile p;
    p.ttft_ms = 1;
    p.itl_ms = 1;
    auto s = serve::Server::Create(o, std::make_unique<serve::FixedTiming>(p));
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return;
    server_ = std::move(*s);
    EXPECT_TRUE(server_->Start().ok());
  }
  int port() const override { return server_->port(); }
  std::string path() const override { return "/health"; }
  int FloodSize() const override { return 121'212; }  // about 80 bytes each
  int64_t Served() override { return static_cast<int64_t>(server_->HttpStats().requests); }
  // 100,000 tokens 1 ms apart: a stream of 100 s.
  std::string HoldingRequest() const override {
    return FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":100000,"stream":true})");
  }
  net::HttpServerStats Stats() const override { return server_->HttpStats(); }

 private:
  std::unique_ptr<serve::Server> server_;
};

// The output backlog bound the servers run under here: small, so a flood of a
// few thousand requests reaches it.
constexpr size_t kBacklog = 64 << 10;

net::HttpServerOptions SmallLimits() {
  net::HttpServerOptions h;
  h.max_output_backlog = kBacklog;
  return h;
}

std::unique_ptr<Target> MakeTarget(const std::string& which, net::HttpServerOptions http = SmallLimits()) {
  if (which == "dashboard") return std::make_unique<DashboardTarget>(http);
  return std::make_unique<ServeTarget>(http);
}

// `n` pipelined GETs of `path` on one connection, sent from a thread that
// blocks when the server stops reading; nothing is read until ReadAll.
struct Flood {
  ProbeConnection conn;
  std::thread sender;
  std::atomic<bool> sent{false};
  Flood(int port, const std::string& path, int n, int rcvbuf = 0)
      : conn(ProbeConnection::Connect("127.0.0.1", port).value()) {
    if (rcvbuf > 0) setsockopt(conn.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    const std::string one = FormatGet(path);
    std::string all;
    all.reserve(one.size() * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all += one;
    sender = std::thread([this, all = std::move(all)] {
      (void)conn.SendRaw(all);
      sent = true;
    });
  }
  ~Flood() {
    if (!sent) shutdown(conn.fd(), SHUT_RDWR);  // a failed test must not hang in the sender
    sender.join();
  }
  // Reads up to n answers; how many complete 200 responses arrived. Pauses
  // `pause_us` every 64 answers (a slow reader).
  int ReadAll(int n, int pause_us = 0) {
    int got = 0;
    for (; got < n; ++got) {
      if (pause_us > 0 && got % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      auto r = conn.ReadReply(60 * kNanosPerSecond);
      if (!r.ok() || r->status != 200) break;
    }
    return got;
  }
};

// Waits up to 30 s for pred().
template <typename Pred>
bool WaitFor(Pred pred) {
  const Nanos until = SteadyClock::MonotonicNow() + 30 * kNanosPerSecond;
  while (!pred()) {
    if (SteadyClock::MonotonicNow() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

class Fairness : public ::testing::TestWithParam<std::string> {};

TEST_P(Fairness, AFloodThatNeverReadsDoesNotStarveASecondClient) {
  auto target = MakeTarget(GetParam());
  const int kFlood = target->FloodSize();
  Flood flood(target->port(), target->path(), kFlood);
  // The server has started on the flood...
  ASSERT_TRUE(WaitFor([&] { return target->Served() >= 50; }));
  // ...and a second client gets its answer while most of the flood is unanswered.
  const HttpReply second = Exchange(target->port(), FormatGet(target->path()));
  EXPECT_EQ(second.status, 200);
  const int64_t served = target->Served();
  std::printf("%s: the second client was answered after %lld of %d flood requests\n", GetParam().c_str(),
              static_cast<long long>(served), kFlood);
  EXPECT_LT(served, kFlood) << "the flood was served to the end ahead of the second client";
  // The flooder's unread answers stay near the bound (plus one turn's answers
  // and the sent prefix kept until compaction), not the whole flood's.
  const int64_t peak = target->PeakOutputBuffer();
  std::printf("%s: peak output buffer %lld bytes (bound %zu)\n", GetParam().c_str(), static_cast<long long>(peak),
              kBacklog);
  EXPECT_LE(peak, static_cast<int64_t>(4 * kBacklog + (256 << 10)));
  // Nothing is lost: reading lets the server finish the flood.
  EXPECT_EQ(flood.ReadAll(kFlood), kFlood);
}

TEST_P(Fairness, ASlowReaderGetsEveryAnswerAndOthersAreServedMeanwhile) {
  auto target = MakeTarget(GetParam());
  constexpr int kRequests = 1'000;
  Flood slow(target->port(), target->path(), kRequests, /*rcvbuf=*/16384);
  std::atomic<int> got{0};
  std::thread reader([&] { got = slow.ReadAll(kRequests, /*pause_us=*/500); });
  // While it trickles, other clients are answered, each on a fresh connection.
  int others = 0;
  while (got.load() < kRequests / 2 && others < 20) {
    if (Exchange(target->port(), FormatGet(target->path())).status == 200) ++others;
  }
  reader.join();
  EXPECT_EQ(got.load(), kRequests);
  EXPECT_GE(others, 1);
  EXPECT_LE(target->PeakOutputBuffer(), static_cast<int64_t>(4 * kBacklog + (256 << 10)));
}

TEST_P(Fairness, AmbiguousFramingIsAnsweredAndClosedNeverHung) {
  auto target = MakeTarget(GetParam());
  const std::string p = target->path();
  const std::vector<std::string> bad = {
      "GET " + p + " HTTP/1.1\nHost: 127.0.0.1\n\n",
      "GET " + p + " HTTP/1.1\r\nHost: 127.0.0.1\n",  // bare LF, head never finished
      "POST " + p + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
      "GET " + p + " HTTP/1.1\r\nHost: 127.0.0.1\r\n folded\r\n\r\n",
      "GET " + p + " HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n",
  };
  for (const std::string& raw : bad) {
    auto c = ProbeConnection::Connect("127.0.0.1", target->port());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c->SendRaw(raw).ok());
    auto r = c->ReadReply(30 * kNanosPerSecond);
    ASSERT_TRUE(r.ok()) << raw << ": " << r.status().message();
    EXPECT_EQ(r->status, 400) << raw;
    EXPECT_TRUE(c->WaitClosed(30 * kNanosPerSecond)) << raw;
  }
  EXPECT_EQ(Exchange(target->port(), FormatGet(p)).status, 200);
}

INSTANTIATE_TEST_SUITE_P(Servers, Fairness, ::testing::Values("dashboard", "serve"),
                         [](const auto& p) { return p.param; });

// ---- The limits of net::HttpServer, on each server -----------------------------------------

class HttpLimits : public ::testing::TestWithParam<std::string> {};

TEST_P(HttpLimits, AHeadThatNeverEndsIsClosedAtTheHeaderTimeout) {
  net::HttpServerOptions h = SmallLimits();
  h.header_timeout = 200 * kNanosPerMilli;
  auto target = MakeTarget(GetParam(), h);
  const std::string p = target->path();
  // Half a head, then nothing.
  auto c = ProbeConnection::Connect("127.0.0.1", target->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->SendRaw("GET " + p + " HTTP/1.1\r\nHost: 127.0.0.1\r\n").ok());
  EXPECT_TRUE(c->WaitClosed(30 * kNanosPerSecond));
  // A head sent a byte at a time (slowloris) is closed before it ends: the
  // timer runs from its first byte, not its last.
  auto slow = ProbeConnection::Connect("127.0.0.1", target->port());
  ASSERT_TRUE(slow.ok());
  const std::string head = "GET " + p + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + std::string(400, 'a') + "\r\n\r\n";
  size_t sent = 0;
  for (; sent < head.size(); ++sent) {
    if (!slow->SendRaw(head.substr(sent, 1)).ok()) break;
    pollfd pfd{slow->fd(), POLLIN, 0};
    if (poll(&pfd, 1, 20) > 0) break;  // the server closed it
  }
  EXPECT_LT(sent, head.size()) << "the whole slow head was read";
  EXPECT_TRUE(slow->WaitClosed(30 * kNanosPerSecond));
  EXPECT_GE(target->Stats().header_timeouts, 2u);
  EXPECT_EQ(Exchange(target->port(), FormatGet(p)).status, 200);
}

TEST_P(HttpLimits, AnIdleConnectionIsClosedAndAnActiveOneIsNot) {
  net::HttpServerOptions h = SmallLimits();
  h.idle_timeout = 400 * kNanosPerMilli;
  auto target = MakeTarget(GetParam(), h);
  // Requests 40 ms apart keep one connection alive for well past the timeout.
  auto active = ProbeConnection::Connect("127.0.0.1", target->port());
  ASSERT_TRUE(active.ok());
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(active->SendRaw(FormatGet(target->path())).ok());
    auto r = active->ReadReply(30 * kNanosPerSecond);
    ASSERT_TRUE(r.ok()) << "request " << i << ": " << r.status().message();
    EXPECT_EQ(r->status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  // Then, left alone, it is closed.
  EXPECT_TRUE(active->WaitClosed(30 * kNanosPerSecond));
  EXPECT_GE(target->Stats().idle_timeouts, 1u);
}

// CPU seconds this process used (the server runs on one of its threads).
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

TEST_P(HttpLimits, PastTheCapIdleConnectionsMakeRoomAndTheLoopDoesNotSpin) {
  net::HttpServerOptions h = SmallLimits();
  h.max_connections = 32;
  auto target = MakeTarget(GetParam(), h);
  std::vector<ProbeConnection> idle;
  for (int i = 0; i < 200; ++i) {
    auto c = ProbeConnection::Connect("127.0.0.1", target->port());
    ASSERT_TRUE(c.ok());
    idle.push_back(std::move(*c));
  }
  // A newcomer is answered although 200 idle sockets were opened before it.
  EXPECT_EQ(Exchange(target->port(), FormatGet(target->path())).status, 200);
  const net::HttpServerStats s = target->Stats();
  EXPECT_LE(s.open_connections, 32);
  EXPECT_GE(s.evicted_idle, 200u - 32u);
  // With the idle sockets still open, the server sleeps: over a quiet spell it
  // uses a small part of one CPU (a spinning loop would use all of it).
  const double cpu0 = CpuSeconds();
  const Nanos t0 = SteadyClock::MonotonicNow();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double cpu = CpuSeconds() - cpu0;
  const double wall = NanosToSeconds(SteadyClock::MonotonicNow() - t0);
  EXPECT_LT(cpu, 0.5 * wall) << "the loop spins with idle connections open";
}

TEST_P(HttpLimits, AtTheCapWithEveryConnectionBusyANewcomerGets503) {
  net::HttpServerOptions h = SmallLimits();
  h.max_connections = 4;
  auto target = MakeTarget(GetParam(), h);
  // Four streams hold every place.
  std::vector<ProbeConnection> streams;
  for (int i = 0; i < 4; ++i) {
    auto c = ProbeConnection::Connect("127.0.0.1", target->port());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c->SendRaw(target->HoldingRequest()).ok());
    streams.push_back(std::move(*c));
  }
  ASSERT_TRUE(WaitFor([&] { return target->Stats().requests >= 4; }));
  const HttpReply r = Exchange(target->port(), FormatGet(target->path()));
  EXPECT_EQ(r.status, 503);
  EXPECT_TRUE(WaitFor([&] { return target->Stats().refused_503 >= 1; }));
  EXPECT_EQ(target->Stats().evicted_idle, 0u) << "a stream was closed to make room";
  // When a stream leaves, the next newcomer is served.
  streams.pop_back();
  ASSERT_TRUE(WaitFor([&] { return target->Stats().open_connections <= 3; }));
  EXPECT_EQ(Exchange(target->port(), FormatGet(target->path())).status, 200);
}

INSTANTIATE_TEST_SUITE_P(Servers, HttpLimits, ::testing::Values("dashboard", "serve"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace frontier
