#include "testing/stream_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace frontier::testing {
namespace {

bool HasContent(std::string_view data) {
  for (std::string_view key : {std::string_view("\"text\":\""), std::string_view("\"content\":\"")}) {
    const size_t p = data.find(key);
    if (p != std::string_view::npos && p + key.size() < data.size() && data[p + key.size()] != '"') return true;
  }
  return false;
}

int OpenSocket(const std::string& host, int port, bool nonblocking, std::string& error) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    error = "bad IPv4 address " + host;
    return -1;
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 && errno != EINPROGRESS) {
    error = std::string("connect: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

// ---- ResponseReader ----------------------------------------------------------------------------

bool ResponseReader::AddBody(std::string_view data, Nanos now) {
  reply_.body += data;
  if (!sse_body_) return true;
  // The probe copies each event's data and reads nothing past it, so it needs
  // none of the padding SseParser::Feed asks of the client's buffers.
  const bool ok = sse_.Feed(data, [&](std::string_view event, bool error) {
    if (error) return true;
    ProbeEvent pe;
    pe.t_ns = now;
    pe.has_content = HasContent(event);
    if (keep_data_) pe.data = std::string(event);
    reply_.events.push_back(std::move(pe));
    return true;
  });
  if (!keep_data_) reply_.body.clear();
  return ok;
}

void ResponseReader::Finish() {
  if (reply_.complete) return;
  reply_.complete = true;
  reply_.status = parser_.head().status;
  for (const auto& [name, value] : parser_.headers()) reply_.headers[name] = value;
}

bool ResponseReader::Feed(std::string_view bytes, Nanos now) {
  if (reply_.first_byte_ns < 0) reply_.first_byte_ns = now;
  if (done()) {
    leftover_.append(bytes);
    return true;
  }
  const bool had_head = parser_.head_done();
  bool events_ok = true;
  const size_t used = parser_.Feed(bytes, [&](std::string_view body) {
    if (reply_.status == 0) {
      reply_.status = parser_.head().status;
      for (const auto& [name, value] : parser_.headers()) reply_.headers[name] = value;
      sse_body_ = parser_.head().event_stream;
    }
    if (!AddBody(body, now)) events_ok = false;
  });
  if (parser_.state() == net::ResponseParser::kError || !events_ok) return false;
  if (!had_head && parser_.head_done() && reply_.status == 0) {
    reply_.status = parser_.head().status;
    for (const auto& [name, value] : parser_.headers()) reply_.headers[name] = value;
    sse_body_ = parser_.head().event_stream;
  }
  if (parser_.state() == net::ResponseParser::kDone) {
    Finish();
    leftover_.append(bytes.substr(used));
  }
  return true;
}

void ResponseReader::OnClose(Nanos now) {
  (void)now;
  if (parser_.OnEof()) {
    Finish();
  } else if (!reply_.complete) {
    reply_.closed_early = true;
  }
}

// ---- ProbeConnection ---------------------------------------------------------------------------

Result<ProbeConnection> ProbeConnection::Connect(const std::string& host, int port) {
  std::string error;
  const int fd = OpenSocket(host, port, /*nonblocking=*/false, error);
  if (fd < 0) return Unavailable(error);
  return ProbeConnection(fd);
}

ProbeConnection::~ProbeConnection() {
  if (fd_ >= 0) close(fd_);
}

Status ProbeConnection::SendRaw(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(std::string("send: ") + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Result<HttpReply> ProbeConnection::ReadReply(Nanos timeout_ns) {
  ResponseReader reader;
  const Nanos deadline = SteadyClock::MonotonicNow() + timeout_ns;
  if (!leftover_.empty()) {
    std::string data = std::move(leftover_);
    leftover_.clear();
    if (!reader.Feed(data, SteadyClock::MonotonicNow())) return InvalidArgument("malformed response");
  }
  char buf[65536];
  while (!reader.done()) {
    const Nanos left = deadline - SteadyClock::MonotonicNow();
    if (left <= 0) return Status(StatusCode::kDeadlineExceeded, "no whole response in time");
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left / kNanosPerMilli) + 1) <= 0) continue;
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    const Nanos now = SteadyClock::MonotonicNow();
    if (n > 0) {
      if (!reader.Feed(std::string_view(buf, static_cast<size_t>(n)), now)) return InvalidArgument("malformed response");
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      reader.OnClose(now);
    }
  }
  leftover_ = reader.TakeLeftover();
  return std::move(reader.reply());
}

bool ProbeConnection::WaitClosed(Nanos timeout_ns) {
  const Nanos deadline = SteadyClock::MonotonicNow() + timeout_ns;
  char buf[4096];
  for (;;) {
    const Nanos left = deadline - SteadyClock::MonotonicNow();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left / kNanosPerMilli) + 1) <= 0) continue;
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

std::string FormatPost(std::string_view path, std::string_view body, bool keep_alive) {
  std::string r = "POST ";
  r += path;
  r += " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ";
  r += std::to_string(body.size());
  r += keep_alive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n";
  r += body;
  return r;
}

std::string FormatGet(std::string_view path, bool keep_alive) {
  std::string r = "GET ";
  r += path;
  r += keep_alive ? " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" : " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  return r;
}

// ---- RunStreams --------------------------------------------------------------------------------

namespace {

// One RunStreams call: every request on its own non-blocking connection, all
// on one epoll set, opened at their planned times and read until each reply
// ends, fails or the deadline passes.
class StreamRun {
 public:
  StreamRun(const std::string& host, int port, const std::vector<ProbeRequest>& requests, const ProbeOptions& options)
      : host_(host), port_(port), requests_(requests), options_(options), results_(requests.size()) {
    streams_.reserve(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) streams_.emplace_back(options.keep_event_data);
    ep_ = epoll_create1(EPOLL_CLOEXEC);
  }
  ~StreamRun() { close(ep_); }

  std::vector<ProbeResult> Run() {
    const Nanos start = SteadyClock::MonotonicNow();
    const Nanos deadline = start + options_.timeout_ns;
    std::vector<epoll_event> events(1024);
    while (finished_ < requests_.size()) {
      ConnectDue(start);
      const int timeout = WaitMillis(start, deadline);
      if (timeout < 0) break;
      const int n = epoll_wait(ep_, events.data(), static_cast<int>(events.size()), timeout);
      for (int e = 0; e < n; ++e) OnEvent(events[e].data.u64, events[e].events);
    }
    for (size_t i = 0; i < streams_.size(); ++i) {
      if (streams_[i].done) continue;
      results_[i].error = streams_[i].fd >= 0 ? "timeout" : "timeout before it was sent";
      if (streams_[i].fd >= 0) Finish(i);
    }
    return std::move(results_);
  }

 private:
  struct Stream {
    int fd = -1;
    std::string out;
    size_t off = 0;
    ResponseReader reader;
    bool done = false;
    explicit Stream(bool keep) : reader(keep) {}
  };

  // Opens the connections whose send time has come (at most
  // connects_per_iteration a pass) and waits for them to be writable.
  void ConnectDue(Nanos start) {
    const Nanos loop_now = SteadyClock::MonotonicNow();
    for (int k = 0; k < options_.connects_per_iteration && next_ < requests_.size() &&
                    start + requests_[next_].send_at_ns <= loop_now;
         ++k, ++next_) {
      Stream& s = streams_[next_];
      results_[next_].connect_ns = SteadyClock::MonotonicNow();
      s.fd = OpenSocket(host_, port_, /*nonblocking=*/true, results_[next_].error);
      if (s.fd < 0) {
        s.done = true;
        ++finished_;
        continue;
      }
      s.out = FormatPost(requests_[next_].path, requests_[next_].body);
      epoll_event ev{};
      ev.events = EPOLLOUT;
      ev.data.u64 = next_;
      epoll_ctl(ep_, EPOLL_CTL_ADD, s.fd, &ev);
    }
  }

  // epoll_wait's timeout until the next planned send (at most 100 ms), or -1
  // once the deadline has passed. epoll_wait counts whole milliseconds: it
  // waits one less and the loop spins the rest, so sends keep to their plan.
  int WaitMillis(Nanos start, Nanos deadline) const {
    const Nanos left = deadline - SteadyClock::MonotonicNow();
    if (left <= 0) return -1;
    Nanos wait = std::min<Nanos>(left, 100 * kNanosPerMilli);
    if (next_ < requests_.size())
      wait = std::min(wait, std::max<Nanos>(0, start + requests_[next_].send_at_ns - SteadyClock::MonotonicNow()));
    return static_cast<int>(wait / kNanosPerMilli) - (wait % kNanosPerMilli == 0 && wait > 0 ? 1 : 0);
  }

  void OnEvent(size_t i, uint32_t what) {
    Stream& s = streams_[i];
    if (s.done) return;
    if ((what & EPOLLOUT) && s.off < s.out.size()) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        results_[i].error = std::string("connect: ") + std::strerror(err);
        Finish(i);
        return;
      }
      WriteSome(i);
      return;
    }
    ReadAvailable(i);
  }

  void WriteSome(size_t i) {
    Stream& s = streams_[i];
    Nanos before_last_send = SteadyClock::MonotonicNow();
    while (s.off < s.out.size()) {
      // Taken before the call: the server may read the request (and start its
      // clock) before send returns, so a later stamp could follow its arrival.
      before_last_send = SteadyClock::MonotonicNow();
      const ssize_t n = send(s.fd, s.out.data() + s.off, s.out.size() - s.off, MSG_NOSIGNAL);
      if (n > 0) {
        s.off += static_cast<size_t>(n);
      } else if (n < 0 && (errno == EAGAIN || errno == ENOTCONN)) {
        return;
      } else {
        results_[i].error = std::string("send: ") + std::strerror(errno);
        Finish(i);
        return;
      }
    }
    results_[i].sent_ns = before_last_send;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = i;
    epoll_ctl(ep_, EPOLL_CTL_MOD, s.fd, &ev);
  }

  // Reads until the socket has nothing more; each chunk is stamped before it
  // is parsed.
  void ReadAvailable(size_t i) {
    Stream& s = streams_[i];
    for (;;) {
      const ssize_t r = recv(s.fd, buf_, sizeof(buf_), 0);
      const Nanos now = SteadyClock::MonotonicNow();  // taken before any parsing
      if (r > 0) {
        if (!s.reader.Feed(std::string_view(buf_, static_cast<size_t>(r)), now)) {
          results_[i].error = "malformed response";
          Finish(i);
          return;
        }
        if (s.reader.done()) {
          Finish(i);
          return;
        }
        continue;
      }
      if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
      s.reader.OnClose(now);
      if (r < 0) results_[i].error = std::string("recv: ") + std::strerror(errno);
      Finish(i);
      return;
    }
  }

  void Finish(size_t i) {
    Stream& s = streams_[i];
    if (s.done) return;
    s.done = true;
    epoll_ctl(ep_, EPOLL_CTL_DEL, s.fd, nullptr);
    close(s.fd);
    results_[i].reply = std::move(s.reader.reply());
    ++finished_;
  }

  const std::string& host_;
  const int port_;
  const std::vector<ProbeRequest>& requests_;
  const ProbeOptions& options_;
  std::vector<ProbeResult> results_;
  std::vector<Stream> streams_;
  int ep_ = -1;
  size_t next_ = 0, finished_ = 0;
  char buf_[65536];
};

}  // namespace

std::vector<ProbeResult> RunStreams(const std::string& host, int port, const std::vector<ProbeRequest>& requests,
                                    const ProbeOptions& options) {
  return StreamRun(host, port, requests, options).Run();
}

}  // namespace frontier::testing
