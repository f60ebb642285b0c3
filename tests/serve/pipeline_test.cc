// A client that pipelines a flood of requests on one connection without
// reading the answers: the server's work stays linear in the input, and
// other connections are served meanwhile (no starvation). Checked by order
// and counts, and by a ratio against a reference taken in the same run; no
// absolute wall-clock bound.
#include <sys/socket.h>

#include <chrono>
#include <regex>
#include <thread>

#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

// The number of 200 responses the server had sent when it rendered /metrics.
int64_t Responses200(int port) {
  const HttpReply r = Exchange(port, FormatGet("/metrics"));
  std::smatch m;
  static const std::regex re("frontier_serve_http_responses_total\\{code=\"200\"\\} (\\d+)");
  if (!std::regex_search(r.body, m, re)) return 0;
  return std::stoll(m[1].str());
}

// Sends `n` pipelined /health requests on a new connection, from a thread.
struct Flood {
  ProbeConnection conn;
  std::thread sender;
  Flood(int port, int n) : conn(ProbeConnection::Connect("127.0.0.1", port).value()) {
    std::string all;
    all.reserve(kHealth.size() * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all += kHealth;
    sender = std::thread([this, all = std::move(all)] { (void)conn.SendRaw(all); });
  }
  void WaitSent() { sender.join(); }
  // Reads every answer; returns how many complete 200 responses arrived.
  int ReadAll(int n) {
    int got = 0;
    for (; got < n; ++got) {
      auto r = conn.ReadReply(30 * kNanosPerSecond);
      if (!r.ok() || r->status != 200) break;
    }
    return got;
  }
};

TEST(Pipelining, AFloodWithoutReadingDoesNotStarveOtherConnections) {
  constexpr int kFlood = 121'212;  // 4 MB of "GET /health"
  ASSERT_GE(kHealth.size() * kFlood, 3'999'000u);
  auto server = StartFixed(1, 1);
  ASSERT_TRUE(server);
  Flood flood(server->port(), kFlood);
  flood.WaitSent();  // every request is with the server; none of the answers was read
  // Another connection is answered although the flood is not finished: its
  // answers pile up unread, so the server holds the rest of it back.
  const int64_t answered_before = Responses200(server->port());
  EXPECT_LT(answered_before, kFlood) << "the flood was served to the end before anyone else";
  ExpectHealthy(server->port());
  // Nothing is lost: reading the answers lets the server finish the flood.
  EXPECT_EQ(flood.ReadAll(kFlood), kFlood);
}

TEST(Pipelining, CostIsLinearInThePipelinedInput) {
  // The time to answer 4x the requests, against the small flood as the
  // reference in the same run: about 4 when linear, 16 when quadratic.
  auto server = StartFixed(1, 1);
  ASSERT_TRUE(server);
  auto timed = [&](int n) {
    const auto t0 = std::chrono::steady_clock::now();
    Flood f(server->port(), n);
    const int got = f.ReadAll(n);
    f.WaitSent();
    EXPECT_EQ(got, n);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  timed(4'000);  // warm up
  const double small = timed(30'303);
  const double large = timed(121'212);
  std::printf("pipelined /health: 30,303 in %.3f s, 121,212 in %.3f s (ratio %.1f)\n", small, large, large / small);
  EXPECT_LT(large / small, 10.0);
}

}  // namespace
}  // namespace frontier::serve::testing
