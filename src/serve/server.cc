// The epoll loop and socket I/O of Server; the HTTP endpoints are in generation.cc.
#include "serve/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "net/listen.h"
#include "serve/server_impl.h"

namespace frontier::serve {
namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool ValidRate(double p) { return p >= 0 && p <= 1; }

}  // namespace

Status ValidateServeOptions(const ServeOptions& o) {
  if (o.model_name.empty()) return InvalidArgument("--served-model-name must not be empty");
  if (o.port < 0 || o.port > 65535) return InvalidArgument("--port must be in [0, 65535], got " + std::to_string(o.port));
  if (o.default_max_tokens < 1) return InvalidArgument("--default-max-tokens must be at least 1");
  if (o.natural_output_len < 0) return InvalidArgument("--natural-output-len must be 0 (off) or more");
  if (o.max_body_bytes < 1024) return InvalidArgument("--max-body-bytes must be at least 1024");
  const FaultOptions& f = o.faults;
  if (!ValidRate(f.error_rate)) return InvalidArgument("--fault-error-rate must be in [0, 1]");
  if (!ValidRate(f.rate_limit_rate)) return InvalidArgument("--fault-429-rate must be in [0, 1]");
  if (!ValidRate(f.disconnect_rate)) return InvalidArgument("--fault-disconnect-rate must be in [0, 1]");
  if (!ValidRate(f.stall_rate)) return InvalidArgument("--fault-stall-rate must be in [0, 1]");
  if (!(f.stall_ms >= 0) || !std::isfinite(f.stall_ms)) return InvalidArgument("--fault-stall-ms must be >= 0");
  return Status::Ok();
}

// ---- Server: thin forwarding to Impl -------------------------------------------------------

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Create(const ServeOptions& options,
                                               std::unique_ptr<TimingSource> timing) {
  FRONTIER_RETURN_IF_ERROR(ValidateServeOptions(options));
  if (!timing) return InvalidArgument("Server::Create needs a timing source");
  auto impl = std::make_unique<Impl>(options, std::move(timing));
  FRONTIER_RETURN_IF_ERROR(impl->Bind());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::Start() { return impl_->Start(); }
void Server::RequestStop() noexcept { impl_->RequestStop(); }
void Server::Drain(Nanos grace_ns) { impl_->Drain(grace_ns); }
void Server::Wait() { impl_->Wait(); }
void Server::Stop() {
  impl_->RequestStop();
  impl_->Wait();
}
int Server::port() const { return impl_->port_; }
std::string Server::address() const {
  const std::string& h = impl_->options_.host;
  const bool v6 = h.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + h + "]" : h) + ":" + std::to_string(impl_->port_);
}
std::vector<RequestTrace> Server::TakeTraces() {
  std::lock_guard<std::mutex> lock(impl_->shared_mu_);
  return std::move(impl_->traces_);
}
ServerSnapshot Server::Snapshot() const {
  std::lock_guard<std::mutex> lock(impl_->shared_mu_);
  return impl_->snapshot_;
}

// ---- Setup and teardown --------------------------------------------------------------------

Status Server::Impl::Bind() {
  if (options_.raise_fd_limit) {
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);  // best effort: capacity, not correctness
    }
  }
  FRONTIER_ASSIGN_OR_RETURN(net::Listener l, net::ListenTcp(options_.host, options_.port, options_.backlog));
  listen_fd_ = l.fd;
  port_ = l.port;

  if (!poller_.ok() || waker_.fd() < 0) return IoError(Errno("epoll/eventfd"));
  if (!poller_.Add(listen_fd_, EPOLLIN, &listen_handle_) || !poller_.Add(waker_.fd(), EPOLLIN, &wake_handle_))
    return IoError(Errno("epoll_ctl"));
  return Status::Ok();
}

Status Server::Impl::Start() {
  if (started_) return FailedPrecondition("the server is already started");
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void Server::Impl::RequestStop() noexcept {
  stop_.store(true);
  waker_.Wake();
}

void Server::Impl::Drain(Nanos grace_ns) {
  drain_deadline_.store(SteadyClock::MonotonicNow() + std::max<Nanos>(0, grace_ns));
  waker_.Wake();
}

bool Server::Impl::DrainDone(Nanos now) {
  const Nanos deadline = drain_deadline_.load();
  if (deadline < 0) return false;
  if (listening_) {
    poller_.Remove(listen_fd_);
    close(listen_fd_);  // later connects are refused
    listen_fd_ = -1;
    listening_ = false;
    accept_paused_ = false;
  }
  return gens_.empty() || now >= deadline;
}

void Server::Impl::Wait() {
  if (thread_.joinable()) thread_.join();
}

Server::Impl::~Impl() {
  RequestStop();
  Wait();
  for (auto& [p, c] : conns_) close(c->fd);
  conns_.clear();
  if (listen_fd_ >= 0) close(listen_fd_);
}

// ---- The loop ------------------------------------------------------------------------------

Nanos Server::Impl::NextWakeup() const {
  Nanos next = timing_->NextWakeup();
  if (!delayed_.empty()) next = std::min(next, delayed_.top().at);
  const Nanos drain = drain_deadline_.load();
  if (drain >= 0) next = std::min(next, drain);
  for (const auto& [c, deadline] : lingering_) next = std::min(next, deadline);
  return next;
}

void Server::Impl::Loop() {
  int n = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    // One pass: first the emissions that fell due, then the I/O that epoll
    // reported. Requests read in this pass are admitted at the pass's time,
    // after every engine step that ended by then: the order a virtual-time
    // simulation uses, so the sim profile's timeline replays exactly.
    pass_now_ = SteadyClock::MonotonicNow();
    RunDue(pass_now_);
    if (!deferred_.empty()) {  // pipelined requests left from the last pass: their next turn
      std::vector<Connection*> turn;
      turn.swap(deferred_);
      for (Connection* c : turn)
        if (!c->closed && !c->busy) ProcessInput(c);
    }
    for (int i = 0; i < n; ++i) {
      const epoll_event& ev = poller_.event(i);
      auto* h = static_cast<Handle*>(ev.data.ptr);
      switch (h->kind) {
        case Handle::kListen: Accept(); break;
        case Handle::kWake: waker_.Drain(); break;
        case Handle::kConn: {
          auto* c = static_cast<Connection*>(h);
          if (!c->closed) OnConnEvent(c, ev.events);
          break;
        }
      }
    }
    CloseExpiredLingerers(pass_now_);
    graveyard_.clear();
    if (DrainDone(SteadyClock::MonotonicNow())) break;

    // The next emission's due time is the wait's deadline (nanosecond
    // resolution: no timer fd, no timer syscall per token).
    const Nanos next = deferred_.empty() ? NextWakeup() : SteadyClock::MonotonicNow();
    PublishSnapshot();
    n = poller_.Wait(next == kNever ? net::Poller::kForever : next);
  }
  // Clean shutdown: abandon generations and close every connection.
  std::vector<Connection*> all;
  for (auto& [p, c] : conns_) all.push_back(p);
  for (Connection* c : all) Close(c);
  graveyard_.clear();
}

void Server::Impl::PublishSnapshot() {
  const EngineStats s = timing_->Stats();
  std::lock_guard<std::mutex> lock(shared_mu_);
  snapshot_.open_connections = static_cast<int64_t>(conns_.size());
  snapshot_.active_requests = static_cast<int64_t>(gens_.size());
  snapshot_.engine_running = s.running;
  snapshot_.engine_waiting = s.waiting;
  snapshot_.kv_usage = s.kv_usage;
  snapshot_.requests_admitted = next_id_ - 1;
  snapshot_.client_disconnects = metrics_.client_disconnects;
}

void Server::Impl::RunDue(Nanos now) {
  while (!delayed_.empty() && delayed_.top().at <= now) {
    const Delayed d = delayed_.top();
    delayed_.pop();
    Deliver(d.e, /*from_stall_queue=*/true);
  }
  due_.clear();
  timing_->Poll(now, due_);
  for (const Emission& e : due_) Deliver(e, /*from_stall_queue=*/false);
  FlushDirty();
}

// ---- Sockets -------------------------------------------------------------------------------

void Server::Impl::Accept() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors: stop accepting until a connection closes.
        poller_.Remove(listen_fd_);
        accept_paused_ = true;
      }
      return;  // EAGAIN, or a transient error the next readiness retries
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // tokens are small writes
    auto conn = std::make_unique<Connection>();
    conn->fd = fd;
    conn->events = EPOLLIN | EPOLLRDHUP;
    if (!poller_.Add(fd, conn->events, static_cast<Handle*>(conn.get()))) {
      close(fd);
      continue;
    }
    Connection* raw = conn.get();
    conns_.emplace(raw, std::move(conn));
  }
}

void Server::Impl::SetInterest(Connection* c, uint32_t events) {
  if (c->events == events) return;
  c->events = events;
  poller_.Modify(c->fd, events, static_cast<Handle*>(c));
}

void Server::Impl::Close(Connection* c) {
  if (c->closed) return;
  c->closed = true;
  if (c->lingering) {  // forget it before the graveyard frees it
    std::erase_if(lingering_, [c](const auto& l) { return l.first == c; });
  }
  std::erase(deferred_, c);
  if (c->gen_id) AbortGeneration(c->gen_id);
  poller_.Remove(c->fd);
  close(c->fd);
  auto it = conns_.find(c);
  graveyard_.push_back(std::move(it->second));  // freed after this batch of events
  conns_.erase(it);
  if (accept_paused_ && listening_) {
    if (poller_.Add(listen_fd_, EPOLLIN, &listen_handle_)) accept_paused_ = false;
  }
}

void Server::Impl::ClientLeft(Connection* c) {
  if (!c->closed && c->gen_id != 0 && gens_.count(c->gen_id) != 0) ++metrics_.client_disconnects;
  Close(c);  // aborts the generation: its slot and KV blocks are freed now
}

void Server::Impl::Linger(Connection* c) {
  if (c->lingering) return;
  c->lingering = true;
  if (c->gen_id) AbortGeneration(c->gen_id);
  c->gen_id = 0;
  c->in.clear();
  c->in_off = 0;
  shutdown(c->fd, SHUT_WR);
  SetInterest(c, EPOLLIN | EPOLLRDHUP);
  lingering_.push_back({c, SteadyClock::MonotonicNow() + 2 * kNanosPerSecond});
}

void Server::Impl::CloseExpiredLingerers(Nanos now) {
  if (lingering_.empty()) return;
  std::vector<std::pair<Connection*, Nanos>> keep;
  std::vector<Connection*> expired;
  for (const auto& [c, deadline] : lingering_) {
    if (now >= deadline) {
      expired.push_back(c);
    } else {
      keep.push_back({c, deadline});
    }
  }
  lingering_.swap(keep);
  for (Connection* c : expired) Close(c);
}

void Server::Impl::OnConnEvent(Connection* c, uint32_t ev) {
  if (ev & (EPOLLERR | EPOLLHUP)) {
    ClientLeft(c);
    return;
  }
  if (ev & EPOLLOUT) {
    if (!Flush(c)) return;
    // Answers drained: requests held back by the output backlog may go on.
    if (!c->busy && c->in_off < c->in.size()) ProcessInput(c);
    if (c->closed) return;
  }
  if (ev & (EPOLLIN | EPOLLRDHUP)) ReadFrom(c);
}

void Server::Impl::ReadFrom(Connection* c) {
  char buf[16384];
  if (c->lingering) {  // discard until EOF
    for (;;) {
      const ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
      if (n > 0) continue;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      Close(c);
      return;
    }
  }
  const size_t cap = options_.max_head_bytes + options_.max_body_bytes + sizeof(buf);
  for (;;) {
    const ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->in.append(buf, static_cast<size_t>(n));
      if (c->in.size() - c->in_off > cap) {
        // A client piling up requests while one streams: stop reading until it is done,
        // but keep watching for a hang-up so its slot is freed at once.
        SetInterest(c, (c->events & ~EPOLLIN) | EPOLLRDHUP);
        break;
      }
      continue;
    }
    if (n == 0) {  // the peer closed: free its slot and KV blocks now
      ClientLeft(c);
      return;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    ClientLeft(c);
    return;
  }
  if (!c->busy) ProcessInput(c);
}

bool Server::Impl::Flush(Connection* c) {
  while (c->out_off < c->out.size()) {
    const ssize_t n = send(c->fd, c->out.data() + c->out_off, c->out.size() - c->out_off,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out_off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (c->out.size() - c->out_off > options_.max_pending_output) {
        Close(c);  // back-pressure limit: the client stopped reading
        return false;
      }
      SetInterest(c, c->events | EPOLLOUT);
      return true;
    }
    ClientLeft(c);  // EPIPE, ECONNRESET: the client is gone
    return false;
  }
  c->out.clear();
  c->out_off = 0;
  if (c->events & EPOLLOUT) SetInterest(c, c->events & ~EPOLLOUT);
  if (c->close_after_write) {
    if (c->linger) {
      Linger(c);
    } else {
      Close(c);
    }
    return false;
  }
  return true;
}

}  // namespace frontier::serve
