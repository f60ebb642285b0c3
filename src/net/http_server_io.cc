// The I/O of HttpServer's connections: reading with its bound, framing
// requests and handing them over, writing, and the handler's calls.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <string>

#include "net/http_server_impl.h"

namespace frontier::net {

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
    if (c->unsent() > options_.max_output_backlog) {
      // Over the bound: send what the socket takes now, and wait (for
      // EPOLLOUT, OnEvent resumes) only if that leaves it over. Stopping with
      // the bound cleared by this very send would leave nothing to wake the
      // connection: no bytes to write, and a client that has sent its whole
      // pipeline (or one whose reading paused at a full input) sends no more;
      // its next request would sit parsed-ready until the head clock closed it.
      if (!Flush(c) || c->unsent() > options_.max_output_backlog) break;
      continue;
    }
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

Result<std::unique_ptr<HttpServer>> HttpServer::Create(const HttpServerOptions& options, HttpHandler& handler,
                                                      const Clock& clock) {
  auto impl = std::make_unique<Impl>(options, handler, clock);
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
