// The client's own HTTP/1.1 transport for http:// (see transport.h): one
// epoll loop (net::Poller) over nonblocking sockets, keep-alive connections
// reused LIFO, responses framed by net::ResponseParser.
//
// Per token event the hot path is: one epoll wake-up for any number of ready
// sockets; one recv() per ready socket into the loop's one read buffer; one
// timestamp right after that recv returned (before any parsing); the chunk
// decoder and the SSE framer hand views into that buffer to simdjson. No
// timer syscalls (the wait's deadline has nanosecond resolution), no heap
// allocation (records reserve their events up front; transfers and
// connections are reused), no copy of a body unless an event spans reads.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "client/transport.h"
#include "net/http1.h"
#include "net/poller.h"

namespace frontier::client::internal {
namespace {

// How often requests are checked against their first-token and total deadlines.
constexpr Nanos kDeadlineScan = 2 * kNanosPerMilli;
constexpr size_t kReadBuffer = 256 << 10;

struct Transfer;

struct Conn {
  int fd = -1;
  Transfer* t = nullptr;     // the request on it; nullptr while idle
  bool connected = false;
  uint32_t interest = 0;
  int64_t requests = 0;      // requests started on this connection
  size_t addr = 0;           // which of the host's addresses it connected to
  size_t idle_at = 0;        // position in the idle list while idle
  size_t slot = 0;           // position in the open list
};

struct Transfer {
  ResponseStream rs;
  net::ResponseParser parser;
  std::string out;           // the request bytes
  size_t out_off = 0;
  Conn* conn = nullptr;
  size_t index = 0;          // position in the active list
  bool got_bytes = false;
  bool retried = false;
  Nanos conn_started = 0;    // the current connection attempt began
};

class Http1Transport final : public Transport {
 public:
  using Address = std::pair<sockaddr_storage, socklen_t>;
  Http1Transport(const ClientOptions& o, std::vector<Address> addrs, std::string dns_error, std::string head_prefix,
                 const Clock& clock)
      : Transport(clock), opt_(o), addrs_(std::move(addrs)), dns_error_(std::move(dns_error)),
        head_prefix_(std::move(head_prefix)), rbuf_(kReadBuffer + kSsePadding) {}

  ~Http1Transport() override {
    for (auto& c : conns_) if (c->fd >= 0) ::close(c->fd);
  }

  bool Init() { return poller_.ok() && waker_.fd() >= 0 && poller_.Add(waker_.fd(), EPOLLIN, nullptr); }

  void Start(const StreamSpec& spec, std::string body, Nanos sent) override {
    const int64_t id = spec.id;
    Transfer* t = NewTransfer();
    t->rs.Begin(spec, sent);
    t->out.clear();
    t->out += head_prefix_;
    if (opt_.send_request_id) {
      t->out += "X-Request-Id: frontier-";
      t->out += std::to_string(id);
      t->out += "\r\n";
    }
    t->out += "Content-Length: ";
    t->out += std::to_string(body.size());
    t->out += "\r\n\r\n";
    t->out += body;
    if (!dns_error_.empty()) return End(t, nullptr, failure::kDns, dns_error_, sent);
    Assign(t);
  }

  void Poll(Nanos deadline, const OnDone& done) override {
    while (true) {
      const Nanos now = clock_.Now();
      ScanDeadlines(now);
      if (!finished_.empty() || now >= deadline) break;
      Nanos wake = deadline;
      if (!active_.empty() && (opt_.total_timeout > 0 || opt_.first_token_timeout > 0 || opt_.connect_timeout > 0))
        wake = std::min(wake, next_scan_);
      const int n = poller_.Wait(RealDeadline(wake, now));
      ++wakeups_;
      bool woken = false;
      for (int i = 0; i < n; ++i) {
        const epoll_event& ev = poller_.event(i);
        if (ev.data.ptr == nullptr) {  // Wake() from another thread
          waker_.Drain();
          woken = true;
          continue;
        }
        OnEvent(static_cast<Conn*>(ev.data.ptr), ev.events);
      }
      if (woken) break;
    }
    Deliver(done);
  }

  void AbortAll(const char* reason, const OnDone& done) override {
    const Nanos now = clock_.Now();
    while (!active_.empty()) {
      Transfer* t = active_.back();
      End(t, reason, nullptr, "", now);
    }
    Deliver(done);
  }

  bool Cancel(int64_t id, const OnDone& done) override {
    for (Transfer* t : active_) {
      if (t->rs.record().id != id) continue;
      End(t, failure::kCancelled, nullptr, "cancelled by the client", clock_.Now());
      Deliver(done);
      return true;
    }
    return false;
  }

  size_t InFlight() const override { return active_.size() + finished_.size(); }

 private:
  Transfer* NewTransfer() {
    Transfer* t;
    if (!spare_transfers_.empty()) {
      t = spare_transfers_.back().release();
      spare_transfers_.pop_back();
    } else {
      t = new Transfer();
    }
    t->parser.Reset();
    t->out_off = 0;
    t->conn = nullptr;
    t->got_bytes = false;
    t->retried = false;
    t->index = active_.size();
    active_.push_back(t);
    return t;
  }

  void Deliver(const OnDone& done) {
    if (finished_.empty()) return;
    out_.swap(finished_);
    for (auto& r : out_) done(std::move(r));
    out_.clear();
  }

  // Puts `t` on an idle keep-alive connection, or opens a new one.
  void Assign(Transfer* t) {
    if (idle_.empty()) return Open(t);
    Conn* c = idle_.back();
    idle_.pop_back();
    Bind(t, c);
    Send(c);  // on a stale connection Send retries on a fresh one
  }

  void Bind(Transfer* t, Conn* c) {
    c->t = t;
    ++c->requests;
    t->conn = c;
    t->conn_started = clock_.Now();
  }

  void Open(Transfer* t) {
    const size_t which = addr_at_;
    const Address& addr = addrs_[which];
    const int fd = ::socket(addr.first.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      return End(t, nullptr, failure::kConnect, std::string("cannot open a socket: ") + std::strerror(errno),
                 clock_.Now());
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Conn* c = NewConn(fd);
    c->addr = which;
    Bind(t, c);
    const int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr.first), addr.second);
    if (r != 0 && errno != EINPROGRESS) return ConnectFailed(c, errno);
    c->connected = r == 0;
    c->interest = EPOLLIN | EPOLLOUT;
    poller_.Add(fd, c->interest, c);
    if (c->connected) Send(c);
  }

  Conn* NewConn(int fd) {
    std::unique_ptr<Conn> c;
    if (!spare_conns_.empty()) {
      c = std::move(spare_conns_.back());
      spare_conns_.pop_back();
      *c = Conn{};
    } else {
      c = std::make_unique<Conn>();
    }
    c->fd = fd;
    c->slot = conns_.size();
    conns_.push_back(std::move(c));
    return conns_.back().get();
  }

  void SetInterest(Conn* c, uint32_t ev) {
    if (c->interest == ev) return;
    c->interest = ev;
    poller_.Modify(c->fd, ev, c);
  }

  // Writes what is left of the request. False if the connection failed.
  bool Send(Conn* c) {
    Transfer* t = c->t;
    while (t->out_off < t->out.size()) {
      const ssize_t n = ::send(c->fd, t->out.data() + t->out_off, t->out.size() - t->out_off, MSG_NOSIGNAL);
      if (n > 0) {
        t->out_off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        SetInterest(c, EPOLLIN | EPOLLOUT);
        return true;
      }
      const std::string why = std::string("send: ") + std::strerror(errno);
      if (c->requests > 1 && !t->retried && !t->got_bytes) {  // a stale keep-alive connection
        Retry(c);
        return false;
      }
      ConnFailed(c, c->requests > 1 ? failure::kClosedMidStream : failure::kConnect, why);
      return false;
    }
    SetInterest(c, EPOLLIN);
    return true;
  }

  // Sends `c`'s request again on a fresh connection (the server closed an
  // idle keep-alive connection just as it was reused; nothing was answered).
  void Retry(Conn* c) {
    Transfer* t = c->t;
    c->t = nullptr;
    CloseConn(c);
    t->retried = true;
    t->out_off = 0;
    t->parser.Reset();
    t->conn = nullptr;
    Open(t);
  }

  // A connect that failed: the host's next address is tried when it has one
  // (e.g. "localhost" resolving to ::1 first while the server listens on
  // 127.0.0.1); new connections then start there.
  void ConnectFailed(Conn* c, int err) {
    const bool next = c->addr + 1 < addrs_.size() &&
                      (err == ECONNREFUSED || err == ENETUNREACH || err == EHOSTUNREACH ||
                       err == EADDRNOTAVAIL || err == EAFNOSUPPORT);
    if (!next) return ConnFailed(c, failure::kConnect, std::string("connect: ") + std::strerror(err));
    if (addr_at_ <= c->addr) addr_at_ = c->addr + 1;
    Transfer* t = c->t;
    c->t = nullptr;
    t->conn = nullptr;
    CloseConn(c);
    Open(t);
  }

  void ConnFailed(Conn* c, const char* code, const std::string& why) {
    Transfer* t = c->t;
    c->t = nullptr;
    CloseConn(c);
    if (t) End(t, nullptr, code, why, clock_.Now());
  }

  void CloseConn(Conn* c) {
    if (c->t) c->t->conn = nullptr;
    if (c->fd >= 0) {
      poller_.Remove(c->fd);
      ::close(c->fd);
      c->fd = -1;
    }
    if (c->t == nullptr && c->idle_at < idle_.size() && idle_[c->idle_at] == c) {
      idle_[c->idle_at] = idle_.back();
      idle_[c->idle_at]->idle_at = c->idle_at;
      idle_.pop_back();
    }
    const size_t i = c->slot;
    if (i < conns_.size() && conns_[i].get() == c) {
      spare_conns_.push_back(std::move(conns_[i]));
      if (i + 1 != conns_.size()) {
        conns_[i] = std::move(conns_.back());
        conns_[i]->slot = i;
      }
      conns_.pop_back();
    }
  }

  void MakeIdle(Conn* c) {
    if (c->t) c->t->conn = nullptr;
    c->t = nullptr;
    c->idle_at = idle_.size();
    idle_.push_back(c);
  }

  void OnEvent(Conn* c, uint32_t ev) {
    if (c->fd < 0) return;
    if (!c->connected) {
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) return ConnectFailed(c, err);
      if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
      c->connected = true;
      if (!Send(c)) return;
      return;
    }
    if ((ev & EPOLLOUT) && c->t && c->t->out_off < c->t->out.size()) {
      if (!Send(c)) return;
    }
    if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) Read(c);
  }

  // One recv per readiness: level-triggered epoll reports the socket again
  // if more is waiting.
  void Read(Conn* c) {
    const ssize_t n = ::recv(c->fd, rbuf_.data(), kReadBuffer, 0);
    const Nanos t_read = clock_.Now();  // the read's one timestamp, before parsing
    Transfer* t = c->t;
    if (n > 0) {
      if (!t) return CloseConn(c);  // bytes on an idle connection: not a response to anything
      return OnBytes(c, t, std::string_view(rbuf_.data(), static_cast<size_t>(n)), t_read);
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    const int err = n < 0 ? errno : 0;
    if (!t) return CloseConn(c);  // the server closed an idle connection
    OnClosed(c, t, err, t_read);
  }

  void OnBytes(Conn* c, Transfer* t, std::string_view bytes, Nanos at) {
    t->got_bytes = true;
    bool stop = false;
    const size_t used = t->parser.Feed(bytes, [&](std::string_view body) {
      if (stop) return;
      if (!t->rs.status_seen()) t->rs.OnStatus(t->parser.head().status);
      if (!t->rs.OnBody(body, at, ctx_)) stop = true;
    });
    if (t->parser.head_done() && !t->rs.status_seen()) t->rs.OnStatus(t->parser.head().status);
    if (stop) {  // malformed stream or an error event: the rest of the response is not read
      c->t = nullptr;
      CloseConn(c);
      return End(t, nullptr, nullptr, "", at);
    }
    switch (t->parser.state()) {
      case net::ResponseParser::kError:
        c->t = nullptr;
        CloseConn(c);
        return End(t, nullptr, failure::kMalformed, "malformed HTTP response: " + t->parser.error(), at);
      case net::ResponseParser::kDone:
        if (used == bytes.size() && t->parser.head().keep_alive) {
          MakeIdle(c);
        } else {
          c->t = nullptr;
          CloseConn(c);
        }
        return End(t, nullptr, nullptr, "", at);
      default:
        return;
    }
  }

  void OnClosed(Conn* c, Transfer* t, int err, Nanos at) {
    if (t->parser.OnEof()) {  // a close-delimited body ends here
      c->t = nullptr;
      CloseConn(c);
      return End(t, nullptr, nullptr, "", at);
    }
    if (!t->got_bytes && c->requests > 1 && !t->retried) return Retry(c);
    std::string why = t->got_bytes ? "the connection closed mid-response" : "the connection closed before a response";
    if (err != 0) why += std::string(" (") + std::strerror(err) + ")";
    c->t = nullptr;
    CloseConn(c);
    End(t, nullptr, failure::kClosedMidStream, why, at);
  }

  // Ends `t` and queues its record; frees its connection if it still has one.
  void End(Transfer* t, const char* forced, const char* transport, const std::string& detail, Nanos at) {
    if (t->conn) {
      Conn* c = t->conn;
      c->t = nullptr;
      t->conn = nullptr;
      CloseConn(c);
    }
    finished_.push_back(t->rs.Finish(at, forced, transport, detail));
    if (t->rs.keeps_text()) ctx_.texts[finished_.back().id] = t->rs.TakeText();
    const size_t i = t->index;
    if (i + 1 != active_.size()) {
      active_[i] = active_.back();
      active_[i]->index = i;
    }
    active_.pop_back();
    spare_transfers_.emplace_back(t);
  }

  void ScanDeadlines(Nanos now) {
    if (now < next_scan_) return;
    next_scan_ = now + kDeadlineScan;
    for (size_t i = 0; i < active_.size();) {
      Transfer* t = active_[i];
      const Nanos age = now - t->rs.record().sent_ns;
      const char* why = nullptr;
      if (opt_.connect_timeout > 0 && t->conn && !t->conn->connected &&
          now - t->conn_started > opt_.connect_timeout)
        why = failure::kConnectTimeout;
      else if (opt_.first_token_timeout > 0 && !t->rs.has_events() && age > opt_.first_token_timeout)
        why = failure::kFirstTokenTimeout;
      else if (opt_.total_timeout > 0 && age > opt_.total_timeout)
        why = failure::kTotalTimeout;
      if (why) {
        End(t, why, nullptr, "", now);  // swaps another transfer into slot i
      } else {
        ++i;
      }
    }
  }

  const ClientOptions opt_;
  const std::vector<Address> addrs_;  // the host's addresses, in the resolver's order
  size_t addr_at_ = 0;                // the one new connections use
  const std::string dns_error_;
  const std::string head_prefix_;  // request line, Host and the fixed headers
  net::Poller poller_{4096};
  std::vector<char> rbuf_;  // the one read buffer, kSsePadding past its end
  std::vector<Transfer*> active_;
  std::vector<std::unique_ptr<Transfer>> spare_transfers_;
  std::vector<std::unique_ptr<Conn>> conns_;  // open connections (busy or idle)
  std::vector<std::unique_ptr<Conn>> spare_conns_;
  std::vector<Conn*> idle_;
  std::vector<RequestRecord> finished_, out_;
  Nanos next_scan_ = 0;
};

}  // namespace

Result<std::unique_ptr<Transport>> NewHttp1Transport(const ClientOptions& o, const std::string& host, int port,
                                                    const std::string& path, const Clock& clock) {
  std::vector<std::pair<sockaddr_storage, socklen_t>> addrs;
  std::string dns_error;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string h = host.size() > 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
  const int rc = ::getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) {
    dns_error = "could not resolve host '" + h + "': " + ::gai_strerror(rc);
  } else {
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
      sockaddr_storage ss{};
      std::memcpy(&ss, a->ai_addr, a->ai_addrlen);
      addrs.emplace_back(ss, a->ai_addrlen);
    }
  }
  if (res) ::freeaddrinfo(res);
  std::string prefix = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(port) + "\r\n";
  for (const auto& line : RequestHeaders(o)) prefix += line + "\r\n";
  auto t = std::make_unique<Http1Transport>(o, std::move(addrs), dns_error, prefix, clock);
  if (!t->Init()) return Internal(std::string("cannot set up the HTTP client: ") + std::strerror(errno));
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace frontier::client::internal
