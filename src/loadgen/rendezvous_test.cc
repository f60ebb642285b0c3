// The shards' rendezvous: a shared token proven both ways, strangers ignored.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "loadgen/shard.h"
#include "tests/util/free_port.h"

namespace frontier::loadgen {
namespace {

RendezvousOptions Options(int port, const std::string& token, double timeout_s) {
  RendezvousOptions o;
  o.address = "127.0.0.1:" + std::to_string(port);
  o.token = token;
  o.timeout_s = timeout_s;
  o.lead_s = 0.05;
  return o;
}

// Connects to shard 0 and says `line`, then holds the connection open.
int Stranger(int port, const std::string& line) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 400 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  if (!line.empty()) (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
  return fd;
}

TEST(Rendezvous, StrangersAreIgnoredAndTheRealShardStillMeets) {
  const int port = testing_util::FreePort();
  auto leader = std::async(std::launch::async, [&] { return Rendezvous({0, 2, "t"}, Options(port, "secret", 60)); });
  // Before the real shard: one that says nothing, one that speaks nonsense, one with a forged MAC.
  const int silent = Stranger(port, "");
  const int noise = Stranger(port, "GET / HTTP/1.1\r\n\r\n");
  const int forged = Stranger(port, "hello 1 2 0123456789abcdef0123456789abcdef deadbeef\n");
  Result<ShardClock> follower = Rendezvous({1, 2, "t"}, Options(port, "secret", 60));
  Result<ShardClock> l = leader.get();
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_TRUE(follower.ok()) << follower.status().message();
  EXPECT_EQ(follower->start_unix_ns, l->start_unix_ns);
  // One host: the true offset is 0, so the measured one is within its bound.
  EXPECT_LE(std::llabs(follower->offset_ns), follower->bound_ns);
  for (int fd : {silent, noise, forged}) ::close(fd);
}

TEST(Rendezvous, AShardWithAnotherTokenIsRefusedAndTheLeaderSaysWhy) {
  const int port = testing_util::FreePort();
  auto leader = std::async(std::launch::async, [&] { return Rendezvous({0, 2, "t"}, Options(port, "secret", 2)); });
  Result<ShardClock> follower = Rendezvous({1, 2, "t"}, Options(port, "other", 2));
  Result<ShardClock> l = leader.get();
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("shard(s) 1 of 2 did not meet"), std::string::npos) << l.status().message();
  EXPECT_NE(l.status().message().find("did not prove the token"), std::string::npos) << l.status().message();
  ASSERT_FALSE(follower.ok());
  EXPECT_NE(follower.status().message().find("not shard 0 of this run"), std::string::npos)
      << follower.status().message();
}

TEST(Rendezvous, AForgedShardZeroIsNotBelieved) {
  const int port = testing_util::FreePort();
  // A listener that greets like shard 0 but cannot prove the token.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  std::atomic<bool> stop{false};
  std::thread forger([&] {
    while (!stop) {
      const int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) return;
      const std::string g = "frontier-rendezvous 1 0123456789abcdef0123456789abcdef\n";
      (void)::send(c, g.data(), g.size(), MSG_NOSIGNAL);
      char buf[512];
      (void)::recv(c, buf, sizeof buf, 0);
      const std::string w = "welcome 00\n";
      (void)::send(c, w.data(), w.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  });
  Result<ShardClock> follower = Rendezvous({1, 2, "t"}, Options(port, "secret", 1));
  stop = true;
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  forger.join();
  ASSERT_FALSE(follower.ok());
  EXPECT_NE(follower.status().message().find("did not prove the token"), std::string::npos)
      << follower.status().message();
}


std::string HexMac(const std::string& key, const std::string& msg) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(msg.data()),
       msg.size(), out, &n);
  std::string h;
  for (unsigned i = 0; i < n; ++i) {
    h += "0123456789abcdef"[out[i] >> 4];
    h += "0123456789abcdef"[out[i] & 15];
  }
  return h;
}

// A shard 0 that holds the token but reads a clock near INT64_MAX ns (centuries away).
TEST(Rendezvous, AnImplausibleClockOffsetIsRefused) {
  const int port = testing_util::FreePort();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  std::thread liar([&] {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) return;
    const std::string nonce = "0123456789abcdef0123456789abcdef";
    const std::string g = "frontier-rendezvous 1 " + nonce + "\n";
    (void)::send(c, g.data(), g.size(), MSG_NOSIGNAL);
    std::string in;
    char buf[512];
    while (in.find('\n') == std::string::npos) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) return;
      in.append(buf, static_cast<size_t>(n));
    }
    // "hello 1 2 NONCE MAC"
    std::istringstream words(in);
    std::string w, idx, cnt, theirs;
    words >> w >> idx >> cnt >> theirs;
    const std::string welcome =
        "welcome " + HexMac("secret", "welcome " + theirs + " " + nonce + " " + idx + " " + cnt) + "\n";
    (void)::send(c, welcome.data(), welcome.size(), MSG_NOSIGNAL);
    (void)::recv(c, buf, sizeof buf, 0);  // ping
    const std::string pong = "pong 9000000000000000000\n";
    (void)::send(c, pong.data(), pong.size(), MSG_NOSIGNAL);
    (void)::recv(c, buf, sizeof buf, 0);
    ::close(c);
  });
  Result<ShardClock> follower = Rendezvous({1, 2, "t"}, Options(port, "secret", 5));
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  liar.join();
  ASSERT_FALSE(follower.ok());
  EXPECT_EQ(follower.status().code(), StatusCode::kOutOfRange) << follower.status().message();
  EXPECT_NE(follower.status().message().find("beyond the 3600 s"), std::string::npos) << follower.status().message();
}

}  // namespace
}  // namespace frontier::loadgen
