// net::HttpServer with a small handler: answers, held responses written
// later, a handler that throws or forgets to answer, and pipelined requests
// answered in order. The fairness and limit tests over real servers are in
// tests/dashboard/fairness_test.cc.
#include "net/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace frontier::net {
namespace {

class TestHandler : public HttpHandler {
 public:
  void OnRequest(HttpExchange& x, HttpRequest& req) override {
    if (req.target == "/throw") throw std::runtime_error("boom");
    if (req.target == "/forget") return;
    if (req.target == "/hold") {
      held_ = x.id();
      x.Hold("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nhel");
      return;
    }
    x.Respond(200, "text/plain", req.target + ":" + req.body, req.keep_alive);
  }
  // Ends the held response at the next wakeup.
  Nanos NextWakeup() override { return held_ ? 0 : kNever; }
  void OnWakeup(Nanos) override {
    if (!held_) return;
    EXPECT_TRUE(server_->Send(held_, "lo!"));
    server_->Finish(held_, /*keep_alive=*/true);
    held_ = 0;
  }
  HttpServer* server_ = nullptr;
  ConnId held_ = 0;
};

struct Running {
  TestHandler handler;
  std::unique_ptr<HttpServer> server;
  std::thread thread;
  Running() {
    auto s = HttpServer::Create(HttpServerOptions{}, handler);
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

// Sends `raw` on a new connection and reads until the server closes or 5 s pass.
std::string Talk(int port, const std::string& raw, size_t want_bytes) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string got;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    (void)send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
    char buf[4096];
    while (got.size() < want_bytes) {
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
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
