// The dashboard over real sockets: pages, safety rules, the event stream, and
// reading while another connection writes the same database.
#include "dashboard/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "dashboard/test_db.h"
#include "net/http1.h"

namespace frontier::dashboard {
namespace {

using nlohmann::json;

struct Reply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string Header(const std::string& name) const {
    for (auto& [k, v] : headers)
      if (k == name) return v;
    return "";
  }
};

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{30, 0};  // a broken server fails the test instead of hanging it
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// One request on a fresh connection; `head` is the request line and headers (no blank line).
Reply Request(int port, const std::string& head, const std::string& body = "") {
  Reply r;
  const int fd = Connect(port);
  if (fd < 0) return r;
  std::string req = head + "\r\n";
  if (!body.empty()) req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  req += "Connection: close\r\n\r\n" + body;
  (void)send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  net::ResponseParser p(64 << 10, /*keep_headers=*/true);
  char buf[65536];
  while (p.state() != net::ResponseParser::kDone && p.state() != net::ResponseParser::kError) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      p.OnEof();
      break;
    }
    p.Feed(std::string_view(buf, static_cast<size_t>(n)), [&](std::string_view piece) { r.body += piece; });
  }
  close(fd);
  r.status = p.head().status;
  r.headers = p.headers();
  return r;
}

Reply Get(int port, const std::string& target, const std::string& extra = "Host: 127.0.0.1") {
  return Request(port, "GET " + target + " HTTP/1.1\r\n" + extra);
}

class ServerTest : public ::testing::Test {
 protected:
  void Start(ServerOptions o = {}) {
    testing::KnownDb db = testing::OpenKnownDb();
    ASSERT_TRUE(db.writer && db.reader);
    dir_ = std::move(db.dir);
    path_ = db.path;
    writer_ = std::move(db.writer);
    reader_ = std::move(db.reader);
    data_ = std::make_unique<DashboardData>(*reader_, nullptr);
    api_ = std::make_unique<Api>(*data_, ApiOptions{path_, false, "test"});
    o.port = 0;
    o.live_interval = 50 * kNanosPerMilli;
    auto s = DashboardServer::Create(o, *api_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    thread_ = std::thread([this] { (void)server_->Run(); });
  }
  void TearDown() override {
    if (server_) server_->RequestStop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return server_->port(); }

  std::unique_ptr<testing_util::ScratchDir> dir_;  // holds the database: goes after the stores close
  std::string path_;
  std::unique_ptr<store::Store> writer_, reader_;
  std::unique_ptr<DashboardData> data_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<DashboardServer> server_;
  std::thread thread_;
};

TEST_F(ServerTest, PagesAssetsAndApiWithSafetyHeaders) {
  Start();
  for (const char* page : {"/", "/runs", "/frontier?run=1", "/point?id=1", "/compare", "/over-time", "/live"}) {
    Reply r = Get(port(), page);
    EXPECT_EQ(r.status, 200) << page;
    EXPECT_NE(r.body.find("/assets/app.js"), std::string::npos) << page;
    EXPECT_EQ(r.Header("content-type"), "text/html; charset=utf-8");
    EXPECT_NE(r.Header("content-security-policy").find("script-src 'self'"), std::string::npos);
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff");
  }
  Reply js = Get(port(), "/assets/uPlot.iife.min.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_NE(js.body.find("uPlot"), std::string::npos);
  EXPECT_EQ(js.Header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Get(port(), "/assets/nothing.js").status, 404);
  EXPECT_EQ(Get(port(), "/etc/passwd").status, 404);
  Reply api = Get(port(), "/api/runs?hardware=h200");
  ASSERT_EQ(api.status, 200);
  EXPECT_EQ(json::parse(api.body)["total"], 1);
  Reply bad = Get(port(), "/api/runs?sort=%ZZ");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(json::parse(bad.body)["error"].get<std::string>().find("percent-escape"), std::string::npos);
}

TEST_F(ServerTest, AForeignHostNameIsRefusedWithoutAToken) {
  Start();
  EXPECT_EQ(Get(port(), "/api/meta", "Host: localhost:8050").status, 200);
  EXPECT_EQ(Get(port(), "/api/meta", "Host: [::1]:8050").status, 200);
  Reply r = Get(port(), "/api/meta", "Host: attacker.example");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("loopback"), std::string::npos);
  EXPECT_EQ(Get(port(), "/api/meta", "X: y").status, 403);  // no Host at all
  // A POST from another origin is refused before it reaches the API.
  Reply post = Request(port(), "POST /api/import?name=a.json HTTP/1.1\r\nHost: 127.0.0.1:1\r\nOrigin: http://evil.example", "{}");
  EXPECT_EQ(post.status, 403);
}

TEST_F(ServerTest, ATokenIsNeededAsBearerOrCookie) {
  ServerOptions o;
  o.token = "s3cret";
  Start(o);
  EXPECT_EQ(Get(port(), "/api/meta").status, 401);
  EXPECT_EQ(Get(port(), "/api/meta", "Authorization: Bearer wrong").status, 401);
  EXPECT_EQ(Get(port(), "/api/meta", "Authorization: Bearer s3cret").status, 200);
  EXPECT_EQ(Get(port(), "/runs", "Cookie: a=b; frontier_token=s3cret").status, 200);
  // A link with the token trades it for a cookie and drops it from the address.
  Reply r = Get(port(), "/frontier?run=1&token=s3cret&y=output");
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(r.Header("location"), "/frontier?run=1&y=output");
  EXPECT_NE(r.Header("set-cookie").find("frontier_token=s3cret; HttpOnly; SameSite=Strict"), std::string::npos);
  EXPECT_EQ(Get(port(), "/frontier?token=nope").status, 401);
}

TEST(DashboardServer, BeyondLoopbackNeedsAToken) {
  testing_util::ScratchDir tmp("dashboard_beyond");
  const std::string path = tmp.Path("beyond.db");
  auto w = store::OpenStore(path);
  ASSERT_TRUE(w.ok());
  DashboardData data(**w, nullptr);
  Api api(data, {});
  ServerOptions o;
  o.host = "0.0.0.0";
  o.port = 0;
  auto s = DashboardServer::Create(o, api);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("--token"), std::string::npos);
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("127.8.9.1"));
  EXPECT_TRUE(IsLoopback("::1"));
  EXPECT_FALSE(IsLoopback("0.0.0.0"));
  EXPECT_FALSE(IsLoopback("10.0.0.1"));
}

// Reads server-sent events until one carries a point with id `want` (or the socket times out).
bool StreamUntil(int fd, int64_t want, std::string& seen) {
  char buf[65536];
  for (;;) {
    if (seen.find("\"id\":" + std::to_string(want) + ",") != std::string::npos) return true;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    seen.append(buf, static_cast<size_t>(n));
  }
}

TEST_F(ServerTest, TheEventStreamSendsPointsAsAWriterStoresThem) {
  Start();
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  const std::string req = "GET /api/live/stream?since=12 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_EQ(send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string seen;
  ASSERT_TRUE(StreamUntil(fd, 13, seen)) << seen;  // the first event: what is after 12
  EXPECT_NE(seen.find("text/event-stream"), std::string::npos);
  EXPECT_EQ(seen.find("\"id\":12,"), std::string::npos);  // nothing at or before `since`
  // A sweep stores a point: the stream carries it without being asked again.
  ASSERT_TRUE(writer_->AddPoint(testing::KnownPoint(2, 64, 0, 20, 700, 350, 60), {}).ok());
  ASSERT_TRUE(StreamUntil(fd, 14, seen)) << seen;
  close(fd);
}

TEST_F(ServerTest, ReadsStayCorrectWhileAnotherConnectionWrites) {
  Start();
  constexpr int kWrites = 60;
  std::atomic<bool> done{false};
  std::thread sweep([&] {
    for (int i = 0; i < kWrites; ++i)
      EXPECT_TRUE(writer_->AddPoint(testing::KnownPoint(2, 100 + i, 0, 10, 100, 50, 60), {}).ok());
    done = true;
  });
  int64_t last = 0;
  int reads = 0;
  while (!done || reads < 3) {
    Reply r = Get(port(), "/api/runs?hardware=mi325x");
    ASSERT_EQ(r.status, 200) << r.body;
    const int64_t points = json::parse(r.body)["runs"][0]["points"].get<int64_t>();
    EXPECT_GE(points, last);  // what was seen stays seen: points only grow
    EXPECT_LE(points, 6 + kWrites);
    last = points;
    ++reads;
  }
  sweep.join();
  Reply r = Get(port(), "/api/runs?hardware=mi325x");
  EXPECT_EQ(json::parse(r.body)["runs"][0]["points"], 6 + kWrites);
  EXPECT_EQ(json::parse(Get(port(), "/api/live?since=13").body)["points"].size(), static_cast<size_t>(kWrites));
}

}  // namespace
}  // namespace frontier::dashboard
