// Internal to frontier_net: a connection of HttpServer and the server's
// implementation, shared by http_server.cc (setup, the loop, connections) and
// http_server_io.cc (reading, framing, writing, the handler's calls). Not a
// public interface.
//
// Thread safety: as http_server.h says; only the loop's thread touches a
// Conn or Impl's private state.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "net/http_server.h"
#include "net/poller.h"

namespace frontier::net {

// Which deadline a connection is under. Each has one duration, so each list
// is in deadline order when connections are appended at the pass's time.
enum Timer { kNoTimer = -1, kIdle = 0, kHead = 1, kLinger = 2, kTimers = 3 };

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
  Impl(const HttpServerOptions& o, HttpHandler& h, const Clock& clock) : options_(o), handler_(h), clock_(clock) {}
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
  const Clock& clock_;  // every time the loop reads
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

}  // namespace frontier::net
