// The shards' rendezvous (shard.h): shard 0 listens, the others connect. Why
// it looks the way it does:
//   - Every step (connect, each read, each write) is bounded by the one
//     deadline, and shard 0 serves all connections from one poll loop, so a
//     stranger that connects and says nothing holds nobody up.
//   - Both sides prove the token with an HMAC over fresh nonces before any
//     clock reading is trusted, so a stray or forged peer is told apart from
//     a shard of this run, dropped, and the real peer still awaited.
//   - Clock readings and the named start are checked for plausibility
//     (kMaxClockOffsetNs, the timeout) before any arithmetic is done on them.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/parse.h"
#include "core/split.h"
#include "core/terminal_text.h"
#include "loadgen/shard.h"

namespace frontier::loadgen {
namespace {

constexpr std::string_view kGreeting = "frontier-rendezvous 1";
constexpr size_t kMaxLine = 512;

int64_t WallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t Now() { return SteadyClock::MonotonicNow(); }

Status DeadlineExceeded(std::string m) { return Status(StatusCode::kDeadlineExceeded, std::move(m)); }

std::string Hex(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

Result<std::string> Nonce() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) return Internal("rendezvous: no random bytes for a nonce");
  return Hex(b, sizeof b);
}

std::string Mac(const std::string& token, const std::string& message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &n);
  return Hex(out, n);
}

bool SameMac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// What each side signs: the direction, both nonces (the signer's peer's
// first, so a reply cannot be replayed as a hello), the index and the count.
std::string HelloMessage(const std::string& leader_nonce, const std::string& nonce, int64_t index, int64_t count) {
  return "hello " + leader_nonce + " " + nonce + " " + std::to_string(index) + " " + std::to_string(count);
}
std::string WelcomeMessage(const std::string& leader_nonce, const std::string& nonce, int64_t index, int64_t count) {
  return "welcome " + nonce + " " + leader_nonce + " " + std::to_string(index) + " " + std::to_string(count);
}

// An int64 word, or nullopt ("1e300", "12x" and overflow are not numbers).
std::optional<int64_t> Int(const std::string& word) {
  Result<int64_t> v = ParseInt("rendezvous", word, std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max());
  if (!v.ok()) return std::nullopt;
  return *v;
}

std::string Quote(const std::string& line) {
  return "'" + EscapeControls(line.size() > 80 ? line.substr(0, 80) + "..." : line) + "'";
}

// A connected, non-blocking TCP socket with line-based reads and writes, each
// under a deadline.
class Line {
 public:
  explicit Line(int fd) : fd_(fd) {
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  ~Line() { ::close(fd_); }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  int fd() const { return fd_; }

  Status Send(const std::string& line, int64_t deadline) {
    const std::string s = line + "\n";
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n > 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return IoError("rendezvous: the connection closed while sending");
      const int64_t left = deadline - Now();
      if (left <= 0) return DeadlineExceeded("rendezvous: the peer did not read in time");
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 1000)));
    }
    return Status::Ok();
  }

  // Reads what is there without waiting. A complete line, if one is in;
  // nullopt when more is needed; IoError when the peer closed or sent a line
  // longer than any this protocol has.
  Result<std::optional<std::string>> Poll() {
    for (;;) {
      const size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return std::optional<std::string>(std::move(line));
      }
      if (buf_.size() > kMaxLine) return IoError("an over-long line");
      char tmp[512];
      const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n > 0) {
        buf_.append(tmp, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return std::optional<std::string>();
      return IoError("the connection closed");
    }
  }

  Result<std::string> Receive(int64_t deadline) {
    for (;;) {
      FRONTIER_ASSIGN_OR_RETURN(std::optional<std::string> line, Poll());
      if (line) return *line;
      const int64_t left = deadline - Now();
      if (left <= 0) return DeadlineExceeded("no answer in time");
      pollfd p{fd_, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 1000)));
    }
  }

 private:
  int fd_;
  std::string buf_;
};

Result<sockaddr_in> Resolve(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    return InvalidArgument("--rendezvous " + address + ": must be HOST:PORT, e.g. 127.0.0.1:29517");
  FRONTIER_ASSIGN_OR_RETURN(int64_t port, ParseInt("--rendezvous port", address.substr(colon + 1), 1, 65535));
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string host = address.substr(0, colon);
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr)
    return InvalidArgument("--rendezvous " + address + ": the host " + host + " does not resolve (IPv4)");
  sockaddr_in a = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  ::freeaddrinfo(res);
  a.sin_port = htons(static_cast<uint16_t>(port));
  return a;
}

// ---- shard 0 ----------------------------------------------------------------

struct Peer {
  std::unique_ptr<Line> line;
  std::string nonce;          // ours, sent in the greeting
  int64_t accepted_at = 0;
  int64_t index = -1;         // >= 1 once it has proven the token
  bool done = false;          // it has measured its offset
};

class Leader {
 public:
  Leader(const ShardSpec& shard, const RendezvousOptions& o, int64_t deadline)
      : shard_(shard), o_(o), deadline_(deadline) {}
  ~Leader() {
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  // Until every other shard has measured its offset; then names the start.
  Result<int64_t> Run(const sockaddr_in& addr) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 64) != 0) {
      return IoError("rendezvous: shard 0 cannot listen on port " + std::to_string(ntohs(addr.sin_port)) +
                     " (in use? pick another --rendezvous port)");
    }
    ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
    while (Done() < shard_.count - 1) {
      const int64_t left = deadline_ - Now();
      if (left <= 0) return Missing();
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (const Peer& p : peers_) fds.push_back({p.line->fd(), POLLIN, 0});
      ::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 200)));
      FRONTIER_RETURN_IF_ERROR(Accept());
      for (size_t i = 0; i < peers_.size();) {
        Result<bool> keep = Serve(peers_[i]);
        if (!keep.ok()) return keep.status();
        if (*keep) {
          ++i;
        } else {
          peers_.erase(peers_.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
    }
    const int64_t start = WallNow() + static_cast<int64_t>(o_.lead_s * 1e9);
    for (Peer& p : peers_) FRONTIER_RETURN_IF_ERROR(p.line->Send("start " + std::to_string(start), deadline_));
    return start;
  }

 private:
  int64_t Done() const {
    return std::count_if(peers_.begin(), peers_.end(), [](const Peer& p) { return p.done; });
  }

  Status Accept() {
    for (;;) {
      const int c = ::accept(listen_fd_, nullptr, nullptr);
      if (c < 0) return Status::Ok();
      // A flood of connections: the oldest one that has not proven the token goes first.
      if (peers_.size() >= static_cast<size_t>(shard_.count) + 64) {
        auto stranger = std::find_if(peers_.begin(), peers_.end(), [](const Peer& p) { return p.index < 0; });
        if (stranger == peers_.end()) {
          ::close(c);
          continue;
        }
        Ignore("too many connections");
        peers_.erase(stranger);
      }
      Peer p;
      p.line = std::make_unique<Line>(c);
      FRONTIER_ASSIGN_OR_RETURN(p.nonce, Nonce());
      p.accepted_at = Now();
      if (!p.line->Send(std::string(kGreeting) + " " + p.nonce, std::min(deadline_, Now() + 1'000'000'000)).ok())
        continue;
      peers_.push_back(std::move(p));
    }
  }

  void Ignore(const std::string& why) {
    ++ignored_;
    last_ignored_ = why;
  }

  // false: drop the connection (a stranger). An error ends the rendezvous
  // (a shard that proved the token and then broke the protocol).
  Result<bool> Serve(Peer& p) {
    for (;;) {
      Result<std::optional<std::string>> got = p.line->Poll();
      if (!got.ok()) {
        if (p.index < 0) {
          Ignore(got.status().message() + " before proving the token");
          return false;
        }
        if (p.done) return true;  // it has all it needs; a close now is its business
        return IoError("rendezvous: shard " + std::to_string(p.index) + " broke off while measuring its clock (" +
                       got.status().message() + ")");
      }
      if (!*got) {
        if (p.index < 0 && Now() - p.accepted_at > static_cast<int64_t>(kRendezvousHelloTimeoutS * 1e9)) {
          Ignore("silent for " + std::to_string(static_cast<int>(kRendezvousHelloTimeoutS)) + " s");
          return false;
        }
        return true;
      }
      const std::string& line = **got;
      if (p.index < 0) {
        if (!Hello(p, line)) return false;
        continue;
      }
      if (line == "ping") {
        if (p.done) return IoError("rendezvous: shard " + std::to_string(p.index) + " pinged after it was done");
        FRONTIER_RETURN_IF_ERROR(p.line->Send("pong " + std::to_string(WallNow()), deadline_));
      } else if (line == "done") {
        p.done = true;
      } else {
        return IoError("rendezvous: shard " + std::to_string(p.index) + " sent " + Quote(line) +
                       " (a different frontier version?)");
      }
    }
  }

  // "hello INDEX COUNT NONCE MAC": true when it proves the token.
  bool Hello(Peer& p, const std::string& line) {
    const std::vector<std::string> w = SplitNonEmpty(line, ' ');
    if (w.size() != 5 || w[0] != "hello") {
      Ignore("it sent " + Quote(line));
      return false;
    }
    const std::optional<int64_t> index = Int(w[1]), count = Int(w[2]);
    if (!index || !count || w[3].size() != 32 ||
        !SameMac(w[4], Mac(o_.token, HelloMessage(p.nonce, w[3], *index, *count)))) {
      Ignore("it did not prove the token");
      return false;
    }
    // The token is right but the shard is not one of ours: a misconfigured run, said plainly.
    if (*count != shard_.count || *index <= 0 || *index >= shard_.count) {
      Ignore("a shard " + std::to_string(*index) + "/" + std::to_string(*count) + " with the right token (this is " +
             "a rendezvous of " + std::to_string(shard_.count) + " shards: check --shard)");
      return false;
    }
    if (std::any_of(peers_.begin(), peers_.end(), [&](const Peer& q) { return q.index == *index; })) {
      Ignore("shard " + std::to_string(*index) + " connected twice");
      return false;
    }
    if (!p.line->Send("welcome " + Mac(o_.token, WelcomeMessage(p.nonce, w[3], *index, *count)), deadline_).ok()) {
      Ignore("it did not read the welcome");
      return false;
    }
    p.index = *index;
    return true;
  }

  Status Missing() const {
    std::string missing;
    for (int64_t i = 1; i < shard_.count; ++i) {
      const bool in = std::any_of(peers_.begin(), peers_.end(), [&](const Peer& p) { return p.index == i && p.done; });
      if (!in) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
    std::string msg = "rendezvous: shard(s) " + missing + " of " + std::to_string(shard_.count) +
                      " did not meet shard 0 at " + o_.address + " within --rendezvous-timeout " +
                      FormatSeconds(o_.timeout_s) + " (started with the same --shard count, --rendezvous and token?)";
    if (ignored_ > 0) {
      msg += "; " + std::to_string(ignored_) + " connection(s) ignored, the last because " + last_ignored_ +
             " (the token comes from --rendezvous-token or FRONTIER_RENDEZVOUS_TOKEN, the same on every shard)";
    }
    return DeadlineExceeded(msg);
  }

  static std::string FormatSeconds(double s) {
    std::string t = std::to_string(s);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t + " s";
  }

  const ShardSpec& shard_;
  const RendezvousOptions& o_;
  const int64_t deadline_;
  int listen_fd_ = -1;
  std::vector<Peer> peers_;
  int64_t ignored_ = 0;
  std::string last_ignored_;
};

// ---- the other shards ---------------------------------------------------------

// A connection to `addr`, or nullptr when the deadline passed first.
std::unique_ptr<Line> Connect(const sockaddr_in& addr, int64_t deadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return nullptr;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return std::make_unique<Line>(fd);
  if (errno != EINPROGRESS) {
    ::close(fd);
    return nullptr;
  }
  for (;;) {
    const int64_t left = deadline - Now();
    if (left <= 0) break;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 1000))) <= 0) continue;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) break;
    return std::make_unique<Line>(fd);
  }
  ::close(fd);
  return nullptr;
}

struct Measured {
  int64_t offset_ns = 0, bound_ns = 0, rtt_ns = 0, start_unix_ns = 0;
};

// One meeting with what listens at the address. nullopt with `why` set when
// it is not shard 0 of this run (then the caller tries again); an error when
// it is, and the meeting failed.
Result<std::optional<Measured>> Meet(const ShardSpec& shard, const RendezvousOptions& o, Line& leader,
                                     int64_t deadline, std::string* why) {
  Result<std::string> greeting = leader.Receive(deadline);
  if (!greeting.ok()) {
    *why = "it sent no greeting (" + greeting.status().message() + ")";
    return std::optional<Measured>();
  }
  const std::vector<std::string> g = SplitNonEmpty(*greeting, ' ');
  if (g.size() != 3 || g[0] + " " + g[1] != kGreeting || g[2].size() != 32) {
    *why = "it greeted with " + Quote(*greeting) + ", not as a frontier shard 0";
    return std::optional<Measured>();
  }
  const std::string& leader_nonce = g[2];
  FRONTIER_ASSIGN_OR_RETURN(std::string nonce, Nonce());
  if (!leader.Send("hello " + std::to_string(shard.index) + " " + std::to_string(shard.count) + " " + nonce + " " +
                       Mac(o.token, HelloMessage(leader_nonce, nonce, shard.index, shard.count)),
                   deadline)
           .ok()) {
    *why = "it closed the connection";
    return std::optional<Measured>();
  }
  Result<std::string> welcome = leader.Receive(deadline);
  if (!welcome.ok()) {
    *why = "it did not accept this shard's token (" + welcome.status().message() +
           "): a different token, --shard count or schedule?";
    return std::optional<Measured>();
  }
  const std::vector<std::string> wl = SplitNonEmpty(*welcome, ' ');
  if (wl.size() != 2 || wl[0] != "welcome" ||
      !SameMac(wl[1], Mac(o.token, WelcomeMessage(leader_nonce, nonce, shard.index, shard.count)))) {
    *why = "it did not prove the token";
    return std::optional<Measured>();
  }

  // Shard 0 of this run: from here a failure is an error, not a stranger.
  Measured m;
  int64_t best_rtt = std::numeric_limits<int64_t>::max();
  for (int r = 0; r < kPingRounds; ++r) {
    const int64_t t1 = WallNow();
    FRONTIER_RETURN_IF_ERROR(leader.Send("ping", deadline).WithContext("rendezvous"));
    Result<std::string> pong = leader.Receive(deadline);
    if (!pong.ok()) return pong.status().WithContext("rendezvous: shard 0 stopped answering pings");
    const int64_t t3 = WallNow();
    const std::vector<std::string> w = SplitNonEmpty(*pong, ' ');
    const std::optional<int64_t> t2 = w.size() == 2 && w[0] == "pong" ? Int(w[1]) : std::nullopt;
    if (!t2) return IoError("rendezvous: shard 0 answered a ping with " + Quote(*pong));
    const int64_t mid = t1 + (t3 - t1) / 2;
    // Compared before subtracting, so a reading of INT64_MIN cannot overflow.
    if (*t2 < mid - kMaxClockOffsetNs || *t2 > mid + kMaxClockOffsetNs) {
      const double s = (static_cast<double>(*t2) - static_cast<double>(mid)) / 1e9;
      return OutOfRange("rendezvous: shard 0's clock reads " + std::to_string(s) +
                        " s from this host's, beyond the 3600 s a clock offset may be: set both hosts' clocks "
                        "(NTP) and start again");
    }
    if (t3 - t1 < best_rtt) {
      best_rtt = t3 - t1;
      m.rtt_ns = best_rtt;
      m.offset_ns = *t2 - mid;
      m.bound_ns = (best_rtt + 1) / 2;
    }
  }
  FRONTIER_RETURN_IF_ERROR(leader.Send("done", deadline).WithContext("rendezvous"));
  Result<std::string> start = leader.Receive(deadline);
  if (!start.ok()) return start.status().WithContext("rendezvous: shard 0 named no start");
  const std::vector<std::string> w = SplitNonEmpty(*start, ' ');
  const std::optional<int64_t> at = w.size() == 2 && w[0] == "start" ? Int(w[1]) : std::nullopt;
  if (!at) return IoError("rendezvous: shard 0 named the start as " + Quote(*start));
  // Shard 0's clock now, as this host estimates it: the start must be near it.
  const int64_t leader_now = WallNow() + m.offset_ns;
  const int64_t limit = static_cast<int64_t>(o.timeout_s * 1e9);
  if (*at < leader_now - limit || *at > leader_now + limit) {
    return OutOfRange("rendezvous: shard 0 named a start " +
                      std::to_string((static_cast<double>(*at) - static_cast<double>(leader_now)) / 1e9) +
                      " s from now, beyond --rendezvous-timeout");
  }
  m.start_unix_ns = *at;
  return std::optional<Measured>(m);
}

}  // namespace

Result<ShardClock> Rendezvous(const ShardSpec& shard, const RendezvousOptions& o) {
  if (o.token.empty()) return InvalidArgument("rendezvous: the shared token is empty");
  FRONTIER_ASSIGN_OR_RETURN(sockaddr_in addr, Resolve(o.address));
  const int64_t deadline = Now() + static_cast<int64_t>(o.timeout_s * 1e9);
  ShardClock clock;
  if (shard.index == 0) {
    Leader leader(shard, o, deadline);
    FRONTIER_ASSIGN_OR_RETURN(clock.start_unix_ns, leader.Run(addr));
  } else {
    // Connects, again and again while shard 0 is not listening yet or what
    // listens is not shard 0 of this run.
    int strangers = 0;
    std::string why;
    for (;;) {
      if (Now() >= deadline) {
        std::string msg = "rendezvous: shard " + std::to_string(shard.index) + " did not meet shard 0 at " +
                          o.address + " within --rendezvous-timeout";
        if (strangers > 0) {
          msg += "; what listens there is not shard 0 of this run (" + std::to_string(strangers) +
                 " tries, the last: " + why +
                 "); the token comes from --rendezvous-token or FRONTIER_RENDEZVOUS_TOKEN, the same on every shard";
        } else {
          msg += " (is shard 0 running, with the same --rendezvous?)";
        }
        return DeadlineExceeded(msg);
      }
      std::unique_ptr<Line> leader = Connect(addr, deadline);
      if (leader) {
        FRONTIER_ASSIGN_OR_RETURN(std::optional<Measured> m, Meet(shard, o, *leader, deadline, &why));
        if (m) {
          clock.offset_ns = m->offset_ns;
          clock.bound_ns = m->bound_ns;
          clock.rtt_ns = m->rtt_ns;
          clock.start_unix_ns = m->start_unix_ns;
          break;
        }
        ++strangers;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // The start on this machine's wall clock, then on its steady clock (which the run's times use).
  const int64_t local_start = clock.start_unix_ns - clock.offset_ns;
  clock.start_steady_ns = Now() + (local_start - WallNow());
  return clock;
}

}  // namespace frontier::loadgen
