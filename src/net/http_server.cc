// The loop of HttpServer: accept, read, frame, hand over, write, and the
// limits and timeouts of http_server.h.
#include "net/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "net/listen.h"
#include "net/poller.h"

namespace frontier::net {
namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Which deadline a connection is under. Each has one duration, so each list
// is in deadline order when connections are appended at the pass's time.
enum Timer { kNoTimer = -1, kIdle = 0, kHead = 1, kLinger = 2, kTimers = 3 };

// Refused newcomers kept lingering at once beyond the cap (each holds a
// descriptor for linger_timeout); past this they are closed at once.
constexpr size_t kMaxLingeringRefusals = 64;

}  // namespace

Status ValidateHttpServerOptions(const HttpServerOptions& o) {
  if (o.port < 0 || o.port > 65535) return InvalidArgument("--port must be in [0, 65535], got " + std::to_string(o.port));
  if (o.max_head_bytes < 1024) return InvalidArgument("the request head bound must be at least 1024 bytes");
  if (o.max_body_bytes < 1024) return InvalidArgument("--max-body-bytes must be at least 1024");
  if (o.requests_per_turn < 1) return InvalidArgument("requests_per_turn must be at least 1");
  if (o.max_output_backlog < 1024) return InvalidArgument("the output backlog bound must be at least 1024 bytes");
  if (o.max_pending_output < o.max_output_backlog)
    return InvalidArgument("the pending output bound must be at least the output backlog bound");
  if (o.header_timeout <= 0) return InvalidArgument("--header-timeout must be positive");
  if (o.idle_timeout <= 0) return InvalidArgument("--idle-timeout must be positive");
  if (o.linger_timeout <= 0) return InvalidArgument("the linger timeout must be positive");
  if (o.max_connections < 1) return InvalidArgument("--max-connections must be at least 1");
  if (o.backlog < 1) return InvalidArgument("the listen backlog must be at least 1");
  return Status::Ok();
}

struct Conn {
  ConnId id = 0;
  int fd = -1;
  bool closed = false;
  uint32_t events = 0;          // current epoll interest
  std::string in;               // received; bytes before in_off are consumed
  size_t in_off = 0;
  std::string out;              // to send; bytes before out_off are sent
  size_t out_off = 0;
  bool have_head = false;       // `req` holds a head whose body is awaited
  HttpRequest req;
  bool held = false;            // the handler holds the response (HttpExchange::Hold)
  bool close_after_write = false;
  bool linger = false;          // with close_after_write: half-close and discard input first
  bool lingering = false;
  bool refused = false;         // a newcomer answered 503 at the cap
  bool deferred = false;        // in deferred_: whole requests left after its turn
  bool moved = false;           // bytes moved since its timer was last set
  uint64_t requests = 0;        // requests completed (a new one restarts the head timer)
  uint64_t timer_requests = 0;  // `requests` when the head timer was set
  Timer timer = kNoTimer;
  Nanos since = 0;              // when its timer started
  std::list<Conn*>::iterator timer_it;

  size_t unsent() const { return out.size() - out_off; }
  size_t unread() const { return in.size() - in_off; }
};

class HttpServer::Impl {
 public:
  Impl(const HttpServerOptions& o, HttpHandler& h) : options_(o), handler_(h) {}
  ~Impl() {
    for (auto& [id, c] : conns_) close(c->fd);
    if (listen_fd_ >= 0) close(listen_fd_);
  }

  Status Bind();
  Status Run();
  void RequestStop() noexcept {
    stop_.store(true);
    waker_.Wake();
  }

  bool Send(ConnId id, std::string_view bytes);
  void Finish(ConnId id, bool keep_alive);
  void CloseById(ConnId id) {
    if (Conn* c = Find(id)) Close(c, CloseReason::kHandler);
  }
  void StopAccepting();
  void Wake() noexcept { waker_.Wake(); }
  void Respond(ConnId id, int status, std::string_view type, std::string_view body, bool keep_alive,
               std::string_view extra);
  void Hold(ConnId id, std::string_view bytes);

  int port_ = 0;
  HttpServer* this_server_ = nullptr;  // the public face, for HttpExchange
  mutable std::mutex stats_mu_;
  HttpServerStats shared_stats_;  // guarded by stats_mu_

 private:
  Conn* Find(ConnId id) {
    auto it = conns_.find(id);
    return it == conns_.end() || it->second->closed ? nullptr : it->second.get();
  }
  void Accept();
  bool EvictOne();
  void Refuse(int fd);
  Conn* AddConn(int fd);
  void OnEvent(Conn* c, uint32_t ev);
  void Read(Conn* c);
  bool WantRead(const Conn* c) const;
  void Process(Conn* c);
  void ServerError(Conn* c, int status, std::string_view message);
  void HandlerError(Conn* c, std::string_view message);
  bool Flush(Conn* c);
  void Linger(Conn* c);
  void Close(Conn* c, CloseReason why);
  void Settle(Conn* c);
  void SetTimer(Conn* c, Timer t);
  void ExpireTimers(Nanos now);
  Nanos NextDeadline() const;
  Nanos Duration(int t) const {
    return t == kIdle ? options_.idle_timeout : t == kHead ? options_.header_timeout : options_.linger_timeout;
  }
  size_t ActiveConnections() const { return conns_.size() - lingering_refusals_; }
  void Publish();

  HttpServerOptions options_;
  HttpHandler& handler_;
  int listen_fd_ = -1;
  Poller poller_{1024};
  Waker waker_;
  char listen_tag_ = 0, wake_tag_ = 0;
  std::atomic<bool> stop_{false};
  bool accept_paused_ = false;
  Nanos now_ = 0;  // the time of this pass of the loop
  size_t cap_ = 0;
  size_t lingering_refusals_ = 0;
  ConnId next_id_ = 1;
  std::unordered_map<ConnId, std::unique_ptr<Conn>> conns_;
  std::vector<std::unique_ptr<Conn>> graveyard_;  // closed in this pass; their pointers may be in events
  std::vector<Conn*> deferred_;
  std::list<Conn*> timers_[kTimers];
  HttpServerStats stats_;
};

// ---- Setup ---------------------------------------------------------------------------------

Status HttpServer::Impl::Bind() {
  FRONTIER_RETURN_IF_ERROR(ValidateHttpServerOptions(options_));
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    if (options_.raise_fd_limit && rl.rlim_cur < rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);  // best effort: capacity, not correctness
      getrlimit(RLIMIT_NOFILE, &rl);
    }
  }
  cap_ = static_cast<size_t>(options_.max_connections);
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 0) {
    // Descriptors for the listener, the poller, files the handler opens.
    const size_t usable = rl.rlim_cur > 128 ? static_cast<size_t>(rl.rlim_cur) - 64 : rl.rlim_cur / 2;
    cap_ = std::max<size_t>(1, std::min(cap_, usable));
  }
  stats_.effective_max_connections = static_cast<int64_t>(cap_);
  FRONTIER_ASSIGN_OR_RETURN(Listener l, ListenTcp(options_.host, options_.port, options_.backlog));
  listen_fd_ = l.fd;
  port_ = l.port;
  if (!poller_.ok() || waker_.fd() < 0) return IoError(Errno("epoll/eventfd"));
  if (!poller_.Add(listen_fd_, EPOLLIN, &listen_tag_) || !poller_.Add(waker_.fd(), EPOLLIN, &wake_tag_))
    return IoError(Errno("epoll_ctl"));
  Publish();
  return Status::Ok();
}

void HttpServer::Impl::Publish() {
  stats_.open_connections = static_cast<int64_t>(conns_.size());
  std::lock_guard<std::mutex> lock(stats_mu_);
  shared_stats_ = stats_;
}

// ---- The loop ------------------------------------------------------------------------------

Status HttpServer::Impl::Run() {
  int n = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    now_ = SteadyClock::MonotonicNow();
    if (handler_.NextWakeup() <= now_) handler_.OnWakeup(now_);
    if (!deferred_.empty()) {  // round robin: pipelined requests left from the last pass
      std::vector<Conn*> turn;
      turn.swap(deferred_);
      for (Conn* c : turn) {
        c->deferred = false;
        if (!c->closed) Process(c);
      }
    }
    for (int i = 0; i < n; ++i) {
      const epoll_event& ev = poller_.event(i);
      if (ev.data.ptr == &listen_tag_) {
        Accept();
      } else if (ev.data.ptr == &wake_tag_) {
        waker_.Drain();
      } else {
        auto* c = static_cast<Conn*>(ev.data.ptr);
        if (!c->closed) OnEvent(c, ev.events);
      }
    }
    ExpireTimers(SteadyClock::MonotonicNow());
    graveyard_.clear();
    Publish();
    Nanos next = std::min(NextDeadline(), handler_.NextWakeup());
    if (!deferred_.empty()) next = 0;  // a past deadline polls
    n = poller_.Wait(next == HttpHandler::kNever ? Poller::kForever : next);
  }
  std::vector<Conn*> all;
  for (auto& [id, c] : conns_) all.push_back(c.get());
  for (Conn* c : all) Close(c, CloseReason::kStopped);
  graveyard_.clear();
  Publish();
  return Status::Ok();
}

Nanos HttpServer::Impl::NextDeadline() const {
  Nanos next = HttpHandler::kNever;
  for (int t = 0; t < kTimers; ++t)
    if (!timers_[t].empty()) next = std::min(next, timers_[t].front()->since + Duration(t));
  return next;
}

void HttpServer::Impl::ExpireTimers(Nanos now) {
  for (int t = 0; t < kTimers; ++t) {
    while (!timers_[t].empty() && timers_[t].front()->since + Duration(t) <= now) {
      Conn* c = timers_[t].front();
      if (t == kIdle) ++stats_.idle_timeouts;
      if (t == kHead) ++stats_.header_timeouts;
      Close(c, t == kLinger ? CloseReason::kDone : CloseReason::kTimeout);  // takes it off the list
    }
  }
}

void HttpServer::Impl::SetTimer(Conn* c, Timer t) {
  if (c->timer != kNoTimer) timers_[c->timer].erase(c->timer_it);
  c->timer = t;
  c->since = now_;
  if (t != kNoTimer) c->timer_it = timers_[t].insert(timers_[t].end(), c);
}

// Puts `c` under the deadline its state calls for, and asks epoll for what it needs.
void HttpServer::Impl::Settle(Conn* c) {
  if (c->closed) return;
  Timer want = kIdle;
  if (c->lingering) {
    want = kLinger;
  } else if (c->held) {
    want = kNoTimer;  // the handler's response: bounded by max_pending_output instead
  } else if ((c->have_head || c->unread() > 0) && c->unsent() <= options_.max_output_backlog && !c->deferred) {
    want = kHead;  // part of a request is here, and nothing of ours holds it up
  }
  // The idle clock and a body's pause clock restart when bytes move; the head
  // clock restarts only with a new request.
  const bool restart = (want == kIdle && c->moved) || (want == kHead && c->have_head && c->moved) ||
                       (want == kHead && c->timer_requests != c->requests);
  if (want != c->timer || restart) {
    SetTimer(c, want);
    c->timer_requests = c->requests;
  }
  c->moved = false;

  uint32_t ev = 0;
  if (c->lingering || WantRead(c)) ev |= EPOLLIN | EPOLLRDHUP;
  if (c->unsent() > 0) ev |= EPOLLOUT;
  if (ev != c->events) {
    if ((c->events & EPOLLIN) && !(ev & EPOLLIN)) ++stats_.read_pauses;
    c->events = ev;
    poller_.Modify(c->fd, ev, c);
  }
}

// ---- Connections ---------------------------------------------------------------------------

void HttpServer::Impl::Accept() {
  if (listen_fd_ < 0) return;  // StopAccepting() earlier in this pass
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        if (EvictOne()) continue;
        // Nothing to give up: stop watching the listener (no spinning on it)
        // until a connection closes.
        poller_.Remove(listen_fd_);
        accept_paused_ = true;
      }
      return;
    }
    ++stats_.accepted;
    if (ActiveConnections() >= cap_ && !EvictOne()) {
      Refuse(fd);
      continue;
    }
    AddConn(fd);
  }
}

// Closes the connection idle the longest (else the one slowest to send its
// head) to make room; false when every connection is busy.
bool HttpServer::Impl::EvictOne() {
  for (Timer t : {kIdle, kHead}) {
    if (timers_[t].empty()) continue;
    ++stats_.evicted_idle;
    Close(timers_[t].front(), CloseReason::kEvicted);
    return true;
  }
  return false;
}

Conn* HttpServer::Impl::AddConn(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  auto conn = std::make_unique<Conn>();
  conn->id = next_id_++;
  conn->fd = fd;
  conn->events = EPOLLIN | EPOLLRDHUP;
  if (!poller_.Add(fd, conn->events, conn.get())) {
    close(fd);
    return nullptr;
  }
  Conn* c = conn.get();
  conns_.emplace(c->id, std::move(conn));
  SetTimer(c, kIdle);
  return c;
}

void HttpServer::Impl::Refuse(int fd) {
  ++stats_.refused_503;
  if (lingering_refusals_ >= kMaxLingeringRefusals) {
    close(fd);  // too many at once: this one only sees the connection close
    return;
  }
  Conn* c = AddConn(fd);
  if (!c) return;
  c->refused = true;
  ++lingering_refusals_;
  ServerError(c, 503, "the server is at its connection limit; try again shortly");
}

void HttpServer::Impl::Close(Conn* c, CloseReason why) {
  if (c->closed) return;
  c->closed = true;
  if (c->refused) --lingering_refusals_;
  if (c->timer != kNoTimer) timers_[c->timer].erase(c->timer_it);
  c->timer = kNoTimer;
  if (c->deferred) std::erase(deferred_, c);
  poller_.Remove(c->fd);
  auto it = conns_.find(c->id);
  graveyard_.push_back(std::move(it->second));
  conns_.erase(it);
  // The figures first: a peer that sees the close and then asks for Stats()
  // finds what led to it counted.
  Publish();
  close(c->fd);
  if (accept_paused_ && poller_.Add(listen_fd_, EPOLLIN, &listen_tag_)) accept_paused_ = false;
  handler_.OnClosed(c->id, why);
}

void HttpServer::Impl::Linger(Conn* c) {
  c->lingering = true;
  c->in.clear();
  c->in_off = 0;
  Publish();
  shutdown(c->fd, SHUT_WR);
  Settle(c);
}

void HttpServer::Impl::OnEvent(Conn* c, uint32_t ev) {
  if (ev & (EPOLLERR | EPOLLHUP)) {
    Close(c, CloseReason::kPeer);
    return;
  }
  if (ev & EPOLLOUT) {
    if (!Flush(c)) return;
    if (!c->held && c->unsent() <= options_.max_output_backlog) Process(c);  // it caught up
    if (c->closed) return;
  }
  if (ev & (EPOLLIN | EPOLLRDHUP)) Read(c);
  Settle(c);
}

// Reading stops at a head's worth beyond the request being read: a client
// that sends without reading its answers fills its own socket, not our memory.
bool HttpServer::Impl::WantRead(const Conn* c) const {
  const size_t body = c->have_head ? static_cast<size_t>(c->req.content_length) : 0;
  return c->unread() < options_.max_head_bytes + body;
}

void HttpServer::Impl::Read(Conn* c) {
  char buf[16384];
  for (;;) {
    if (!c->lingering && !WantRead(c)) break;
    const ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->moved = true;
      if (!c->lingering) c->in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // EOF or a reset; after an error answer, the end the linger waits for.
    Close(c, c->lingering ? CloseReason::kDone : CloseReason::kPeer);
    return;
  }
  if (!c->lingering) Process(c);
}

void HttpServer::Impl::ServerError(Conn* c, int status, std::string_view message) {
  c->in.clear();
  c->in_off = 0;
  c->have_head = false;
  const ErrorAnswer a = handler_.OnServerError(status, message);
  c->out += FormatResponse(status, a.content_type, a.body, false, a.extra_headers);
  c->close_after_write = true;
  c->linger = true;  // the client may still be sending; let it read the answer
  Flush(c);
}

void HttpServer::Impl::Process(Conn* c) {
  int handled = 0;
  while (!c->closed && !c->held && !c->close_after_write && !c->lingering) {
    if (c->unsent() > options_.max_output_backlog) break;  // resumed when Flush drains it
    if (c->in_off == c->in.size()) {
      c->in.clear();
      c->in_off = 0;
    } else if (c->in_off > (64u << 10) && c->in_off * 2 > c->in.size()) {
      c->in.erase(0, c->in_off);  // amortised: at most once per half of the buffer
      c->in_off = 0;
    }
    const std::string_view pending = std::string_view(c->in).substr(c->in_off);
    if (!c->have_head) {
      if (pending.empty()) break;
      if (handled >= options_.requests_per_turn) {
        c->deferred = true;
        deferred_.push_back(c);
        break;
      }
      const HeadResult h = ParseRequestHead(pending, options_.max_head_bytes, c->req, /*keep_headers=*/true);
      if (h.state == ParseState::kNeedMore) break;
      if (h.state == ParseState::kError) {
        ServerError(c, h.error_status, h.error_message);
        break;
      }
      c->in_off += h.head_bytes;
      if (static_cast<uint64_t>(c->req.content_length) > options_.max_body_bytes) {
        ServerError(c, 413, "the request body is " + std::to_string(c->req.content_length) +
                                " bytes; this server accepts at most " + std::to_string(options_.max_body_bytes));
        break;
      }
      c->have_head = true;
      if (c->req.expect_continue && c->unread() < static_cast<size_t>(c->req.content_length))
        c->out += "HTTP/1.1 100 Continue\r\n\r\n";
    }
    const auto need = static_cast<size_t>(c->req.content_length);
    if (c->unread() < need) break;
    c->req.body.assign(c->in, c->in_off, need);
    c->in_off += need;
    c->have_head = false;
    ++c->requests;
    ++handled;
    ++stats_.requests;
    HttpRequest req = std::move(c->req);
    c->req = HttpRequest{};
    HttpExchange x(*this_server_, c->id, now_);
    try {
      handler_.OnRequest(x, req);
      if (!x.answered() && !c->closed) HandlerError(c, "the handler gave no answer");
    } catch (const std::exception& ex) {
      // A bug must not take the server down: answer 500 and keep serving the others.
      if (!x.answered() && !c->closed) HandlerError(c, std::string("internal error: ") + ex.what());
    }
  }
  if (!c->closed && c->unsent() > 0) Flush(c);
  Settle(c);
}

void HttpServer::Impl::HandlerError(Conn* c, std::string_view message) {
  const ErrorAnswer a = handler_.OnServerError(500, message);
  Respond(c->id, 500, a.content_type, a.body, false, a.extra_headers);
}

bool HttpServer::Impl::Flush(Conn* c) {
  stats_.peak_output_buffer = std::max(stats_.peak_output_buffer, c->out.size());
  while (c->out_off < c->out.size()) {
    const ssize_t n = send(c->fd, c->out.data() + c->out_off, c->out.size() - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out_off += static_cast<size_t>(n);
      c->moved = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (c->held && c->unsent() > options_.max_pending_output) {
        ++stats_.too_slow;
        Close(c, CloseReason::kTooSlow);  // the client stopped reading its stream
        return false;
      }
      if (c->out_off > (64u << 10) && c->out_off * 2 > c->out.size()) {
        c->out.erase(0, c->out_off);  // a steady slow reader must not grow the buffer forever
        c->out_off = 0;
      }
      Settle(c);
      return true;
    }
    Close(c, CloseReason::kPeer);  // EPIPE, ECONNRESET: the client is gone
    return false;
  }
  c->out.clear();
  c->out_off = 0;
  if (c->close_after_write) {
    if (c->linger && !c->lingering) {
      Linger(c);
    } else if (!c->lingering) {
      Close(c, CloseReason::kDone);
      return false;
    }
    return true;
  }
  return true;
}

// ---- Handler calls -------------------------------------------------------------------------

void HttpServer::Impl::Respond(ConnId id, int status, std::string_view type, std::string_view body, bool keep_alive,
                               std::string_view extra) {
  Conn* c = Find(id);
  if (!c) return;
  c->out += FormatResponse(status, type, body, keep_alive, extra);
  if (!keep_alive) c->close_after_write = true;
  // Process flushes once for all the requests of a turn.
}

void HttpServer::Impl::Hold(ConnId id, std::string_view bytes) {
  Conn* c = Find(id);
  if (!c) return;
  c->held = true;
  c->out += bytes;
}

bool HttpServer::Impl::Send(ConnId id, std::string_view bytes) {
  Conn* c = Find(id);
  if (!c) return false;
  c->out += bytes;
  if (!Flush(c)) return false;
  Settle(c);
  return !c->closed;
}

void HttpServer::Impl::Finish(ConnId id, bool keep_alive) {
  Conn* c = Find(id);
  if (!c) return;
  c->held = false;
  if (!keep_alive) c->close_after_write = true;
  if (!Flush(c)) return;
  Process(c);  // requests that arrived meanwhile
}

void HttpServer::Impl::StopAccepting() {
  if (listen_fd_ < 0) return;
  if (!accept_paused_) poller_.Remove(listen_fd_);
  close(listen_fd_);
  listen_fd_ = -1;
  accept_paused_ = false;  // nothing to resume
}

// ---- HttpServer and HttpExchange -----------------------------------------------------------

ErrorAnswer HttpHandler::OnServerError(int /*status*/, std::string_view message) {
  ErrorAnswer a;
  a.body = std::string(message) + "\n";
  return a;
}

void HttpExchange::Respond(int status, std::string_view content_type, std::string_view body, bool keep_alive,
                           std::string_view extra_headers) {
  if (done_) return;
  done_ = true;
  server_.impl_->Respond(id_, status, content_type, body, keep_alive, extra_headers);
}

void HttpExchange::Hold(std::string_view head_and_first_bytes) {
  if (done_) return;
  done_ = true;
  server_.impl_->Hold(id_, head_and_first_bytes);
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(const HttpServerOptions& options, HttpHandler& handler) {
  auto impl = std::make_unique<Impl>(options, handler);
  FRONTIER_RETURN_IF_ERROR(impl->Bind());
  auto s = std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
  return s;
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->this_server_ = this; }
HttpServer::~HttpServer() = default;
Status HttpServer::Run() { return impl_->Run(); }
void HttpServer::RequestStop() noexcept { impl_->RequestStop(); }
int HttpServer::port() const { return impl_->port_; }
HttpServerStats HttpServer::Stats() const {
  std::lock_guard<std::mutex> lock(impl_->stats_mu_);
  return impl_->shared_stats_;
}
bool HttpServer::Send(ConnId id, std::string_view bytes) { return impl_->Send(id, bytes); }
void HttpServer::Finish(ConnId id, bool keep_alive) { impl_->Finish(id, keep_alive); }
void HttpServer::Close(ConnId id) { impl_->CloseById(id); }
void HttpServer::StopAccepting() { impl_->StopAccepting(); }
void HttpServer::Wake() noexcept { impl_->Wake(); }

}  // namespace frontier::net
