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

#include "net/http_server_impl.h"
#include "net/listen.h"
#include "net/poller.h"

namespace frontier::net {
namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

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
    now_ = clock_.Now();
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
    ExpireTimers(clock_.Now());
    graveyard_.clear();
    Publish();
    Nanos next = std::min(NextDeadline(), handler_.NextWakeup());
    if (!deferred_.empty()) next = 0;  // a past deadline polls
    // The deadlines are on clock_; the wait is the time it has left.
    n = poller_.WaitFor(next == HttpHandler::kNever ? Poller::kForever : next - clock_.Now());
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

}  // namespace frontier::net
