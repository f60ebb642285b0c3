// net::HttpServer with a small handler: answers, held responses written
// later or closed by the handler, a handler that throws or forgets to answer,
// pipelined requests answered in order (also behind answers over the output
// bound), close reasons, the handler's own error bodies, a listener closed
// for a graceful stop, and timeouts driven by an injected clock. The fairness
// and limit tests over real servers are in tests/dashboard/fairness_test.cc.
#include "net/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace frontier::net {
namespace {

// The body of an answer to GET /big.
constexpr size_t kBigBody = 16 << 10;

class TestHandler : public HttpHandler {
 public:
  void OnRequest(HttpExchange& x, HttpRequest& req) override {
    if (req.target == "/throw") throw std::runtime_error("boom");
    if (req.target == "/forget") return;
    if (req.target == "/hold" || req.target == "/cut") {
      held_ = x.id();
      cut_ = req.target == "/cut";
      x.Hold("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nhel");
      return;
    }
    if (req.target == "/big") return x.Respond(200, "text/plain", std::string(kBigBody, 'b'), req.keep_alive);
    if (req.target == "/stop-accepting") server_->StopAccepting();
    // The pass's time: never before the wakeup that ran first in the pass.
    EXPECT_GE(x.now(), last_wakeup_);
    x.Respond(200, "text/plain", req.target + ":" + req.body, req.keep_alive);
  }
  // Ends (or cuts) the held response at the next wakeup.
  Nanos NextWakeup() override { return held_ ? 0 : kNever; }
  void OnWakeup(Nanos now) override {
    last_wakeup_ = now;
    if (!held_) return;
    const ConnId id = held_;
    held_ = 0;
    if (cut_) {
      server_->Close(id);
      return;
    }
    EXPECT_TRUE(server_->Send(id, "lo!"));
    server_->Finish(id, /*keep_alive=*/true);
  }
  void OnClosed(ConnId, CloseReason why) override {
    std::lock_guard<std::mutex> lock(mu_);
    reasons_.push_back(why);
  }
  ErrorAnswer OnServerError(int status, std::string_view message) override {
    ErrorAnswer a;
    a.content_type = "application/json";
    a.body = "{\"status\":" + std::to_string(status) + ",\"message\":\"" + std::string(message) + "\"}";
    return a;
  }
  std::vector<CloseReason> Reasons() {
    std::lock_guard<std::mutex> lock(mu_);
    return reasons_;
  }
  HttpServer* server_ = nullptr;
  ConnId held_ = 0;
  bool cut_ = false;
  Nanos last_wakeup_ = 0;
  std::mutex mu_;
  std::vector<CloseReason> reasons_;  // guarded by mu_
};

// A clock that stands still until the test moves it; safe from any thread.
class StepClock final : public Clock {
 public:
  Nanos Now() const override { return now_.load(); }
  void Advance(Nanos d) { now_.fetch_add(d); }

 private:
  std::atomic<Nanos> now_{kNanosPerSecond};
};

struct Running {
  TestHandler handler;
  std::unique_ptr<HttpServer> server;
  std::thread thread;
  explicit Running(const HttpServerOptions& o = {}, const Clock& clock = SteadyClock::Get()) {
    auto s = HttpServer::Create(o, handler, clock);
    EXPECT_TRUE(s.ok()) << s.status().message();
    server = std::move(*s);
    handler.server_ = server.get();
    thread = std::thread([this] { (void)server->Run(); });
  }
  ~Running() {
    server->RequestStop();
    thread.join();
  }
};

// A connection to the server on loopback whose reads give up after 5 s; -1 when it cannot connect.
int Dial(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  close(fd);
  return -1;
}

// Sends `raw` on a new connection and reads until the server closes or 5 s pass.
std::string Talk(int port, const std::string& raw, size_t want_bytes) {
  std::string got;
  const int fd = Dial(port);
  if (fd >= 0) {
    (void)send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
    char buf[4096];
    while (got.size() < want_bytes) {
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    close(fd);
  }
  return got;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(HttpServer, PipelinedRequestsAreAnsweredInOrder) {
  Running r;
  std::string raw;
  for (int i = 0; i < 100; ++i) raw += "POST /p HTTP/1.1\r\nContent-Length: 2\r\n\r\n" + std::to_string(10 + i % 90);
  raw += "GET /last HTTP/1.1\r\nConnection: close\r\n\r\n";
  const std::string got = Talk(r.server->port(), raw, SIZE_MAX);
  EXPECT_EQ(Count(got, "HTTP/1.1 200"), 101u);
  size_t at = 0;
  for (int i = 0; i < 100; ++i) {
    const size_t next = got.find("/p:" + std::to_string(10 + i % 90), at);
    ASSERT_NE(next, std::string::npos) << i;
    at = next;
  }
  EXPECT_NE(got.find("/last:", at), std::string::npos);
  EXPECT_EQ(r.server->Stats().requests, 101u);
}

TEST(HttpServer, AHeldResponseIsFinishedLaterAndTheConnectionGoesOn) {
  Running r;
  const std::string got =
      Talk(r.server->port(), "GET /hold HTTP/1.1\r\n\r\nGET /after HTTP/1.1\r\nConnection: close\r\n\r\n", SIZE_MAX);
  const size_t body = got.find("hello!");
  ASSERT_NE(body, std::string::npos) << got;
  EXPECT_NE(got.find("/after:", body), std::string::npos) << got;
}

TEST(HttpServer, AHandlerThatThrowsOrForgetsGets500AndOthersGoOn) {
  Running r;
  EXPECT_EQ(Talk(r.server->port(), "GET /throw HTTP/1.1\r\n\r\n", SIZE_MAX).rfind("HTTP/1.1 500", 0), 0u);
  EXPECT_EQ(Talk(r.server->port(), "GET /forget HTTP/1.1\r\n\r\n", SIZE_MAX).rfind("HTTP/1.1 500", 0), 0u);
  EXPECT_EQ(Talk(r.server->port(), "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n", SIZE_MAX).rfind("HTTP/1.1 200", 0),
            0u);
}

TEST(HttpServer, TheHandlerSeesWhyEachConnectionClosed) {
  Running r;
  // The server ends it (no keep-alive), then the handler cuts a held
  // response, then the client leaves with a request half sent.
  EXPECT_NE(Talk(r.server->port(), "GET /a HTTP/1.1\r\nConnection: close\r\n\r\n", SIZE_MAX).find("/a:"),
            std::string::npos);
  const std::string cut = Talk(r.server->port(), "GET /cut HTTP/1.1\r\n\r\n", SIZE_MAX);
  EXPECT_NE(cut.find("hel"), std::string::npos) << cut;
  EXPECT_EQ(cut.find("hello!"), std::string::npos) << "the held response was cut, not finished";
  (void)Talk(r.server->port(), "GET /half HTTP/1.1\r\n", 0);
  for (int i = 0; i < 5000 && r.handler.Reasons().size() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::vector<CloseReason> want = {CloseReason::kDone, CloseReason::kHandler, CloseReason::kPeer};
  EXPECT_EQ(r.handler.Reasons(), want);
}

TEST(HttpServer, TheHandlerWritesTheServersOwnErrorAnswers) {
  Running r;
  const std::string bad = Talk(r.server->port(), "GET /x HTTP/1.1\r\nHost : y\r\n\r\n", SIZE_MAX);
  EXPECT_EQ(bad.rfind("HTTP/1.1 400", 0), 0u) << bad;
  EXPECT_NE(bad.find("content-type: application/json"), std::string::npos) << bad;
  EXPECT_NE(bad.find("{\"status\":400,"), std::string::npos) << bad;
  const std::string thrown = Talk(r.server->port(), "GET /throw HTTP/1.1\r\n\r\n", SIZE_MAX);
  EXPECT_NE(thrown.find("{\"status\":500,\"message\":\"internal error: boom\"}"), std::string::npos) << thrown;
}

TEST(HttpServer, AfterStopAcceptingOpenConnectionsAreServedAndNewOnesRefused) {
  Running r;
  const int port = r.server->port();
  const int fd = Dial(port);
  ASSERT_GE(fd, 0);
  const std::string req = "GET /stop-accepting HTTP/1.1\r\n\r\nGET /still HTTP/1.1\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fd);
  EXPECT_NE(got.find("/still:"), std::string::npos) << got;
  EXPECT_EQ(Talk(port, "GET /new HTTP/1.1\r\n\r\n", SIZE_MAX), "") << "a connect after StopAccepting was served";
}

// One request on `fd`: true when its answer came back (the connection is open).
bool Ask(int fd, const std::string& path) {
  const std::string req = "GET " + path + " HTTP/1.1\r\n\r\n";
  if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) return false;
  std::string got;
  char buf[4096];
  while (got.find(path + ":") == std::string::npos) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    got.append(buf, static_cast<size_t>(n));
  }
  return true;
}

// True when the server closed `fd` (EOF or a reset), false when the read timed out.
bool ClosedByServer(int fd) {
  char buf[256];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;
  }
}

// The timeouts are readings of the injected clock: with the clock standing
// still nothing expires, and moving it past a deadline closes exactly the
// connection under that deadline at the loop's next pass, with no sleep.
TEST(HttpServer, TimeoutsFollowTheInjectedClock) {
  StepClock clock;
  HttpServerOptions o;
  o.header_timeout = 10 * kNanosPerSecond;
  o.idle_timeout = 60 * kNanosPerSecond;
  Running r(o, clock);
  const int idle = Dial(r.server->port());
  const int slow = Dial(r.server->port());
  ASSERT_GE(idle, 0);
  ASSERT_GE(slow, 0);
  ASSERT_TRUE(Ask(idle, "/first"));
  const std::string part = "GET /slow HTTP/1.1\r\n";  // a head begun, never ended
  ASSERT_EQ(send(slow, part.data(), part.size(), MSG_NOSIGNAL), static_cast<ssize_t>(part.size()));
  ASSERT_TRUE(Ask(idle, "/second"));  // a pass after the slow head's bytes: its head timer runs
  EXPECT_EQ(r.server->Stats().header_timeouts, 0u);

  clock.Advance(11 * kNanosPerSecond);  // past the head's deadline, not the idle one
  r.server->Wake();                     // a pass of the loop
  EXPECT_TRUE(ClosedByServer(slow));
  EXPECT_EQ(r.server->Stats().header_timeouts, 1u);
  ASSERT_TRUE(Ask(idle, "/third")) << "the keep-alive connection closed before its idle deadline";
  EXPECT_EQ(r.server->Stats().idle_timeouts, 0u);

  clock.Advance(61 * kNanosPerSecond);  // past the idle deadline counted from /third
  r.server->Wake();
  EXPECT_TRUE(ClosedByServer(idle));
  const HttpServerStats st = r.server->Stats();
  EXPECT_EQ(st.idle_timeouts, 1u);
  EXPECT_EQ(st.header_timeouts, 1u);
  close(idle);
  close(slow);
}

// Answers larger than the output bound put the connection over it one at a
// time. The pipeline's next request waits behind them only while they are
// unsent, under the idle clock, never the head clock: the wait is the
// server's, not the client's. Here the clock moves past header_timeout
// between reads, and every answer still comes. (The server used to stop
// at the bound, then send the whole backlog in the same call; with nothing
// left to write and a client with nothing left to send, nothing woke the
// connection until the head clock closed it after one answer. Under load the
// fairness flood hit this at the 10 s default.)
TEST(HttpServer, APipelineBehindAnswersOverTheOutputBoundIsServedToTheEnd) {
  StepClock clock;
  HttpServerOptions o;
  o.max_output_backlog = 1024;  // the least allowed: each answer alone is over it
  o.header_timeout = kNanosPerSecond;
  o.idle_timeout = 3600 * kNanosPerSecond;
  Running r(o, clock);
  const int fd = Dial(r.server->port());
  ASSERT_GE(fd, 0);
  constexpr size_t kRequests = 32;
  std::string raw;
  for (size_t i = 0; i < kRequests; ++i) raw += "GET /big HTTP/1.1\r\n\r\n";
  ASSERT_EQ(send(fd, raw.data(), raw.size(), MSG_NOSIGNAL), static_cast<ssize_t>(raw.size()));
  const size_t one = FormatResponse(200, "text/plain", std::string(kBigBody, 'b'), true).size();
  std::string got;
  std::vector<char> buf(64 << 10);
  while (got.size() < kRequests * one) {
    const ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) break;  // closed by the server, or nothing for 5 s
    got.append(buf.data(), static_cast<size_t>(n));
    clock.Advance(2 * o.header_timeout);  // a slow reader, as the server's clock sees it
    r.server->Wake();
  }
  close(fd);
  EXPECT_EQ(got.size() / one, kRequests) << "answers read before the connection ended";
  EXPECT_EQ(Count(got, "HTTP/1.1 200"), kRequests);
  EXPECT_EQ(r.server->Stats().header_timeouts, 0u);
}

TEST(HttpServer, BadOptionsAreRefusedByName) {
  HttpServerOptions o;
  o.header_timeout = 0;
  EXPECT_NE(ValidateHttpServerOptions(o).message().find("header-timeout"), std::string::npos);
  o = HttpServerOptions{};
  o.max_connections = 0;
  EXPECT_NE(ValidateHttpServerOptions(o).message().find("max-connections"), std::string::npos);
  EXPECT_TRUE(ValidateHttpServerOptions(HttpServerOptions{}).ok());
}

}  // namespace
}  // namespace frontier::net
