#include "dashboard/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "dashboard/assets.h"
#include "net/http1.h"
#include "net/listen.h"
#include "net/poller.h"

namespace frontier::dashboard {
namespace {

constexpr std::string_view kJson = "application/json; charset=utf-8";
constexpr std::string_view kCookie = "frontier_token";
constexpr size_t kMaxHead = 64 << 10;

// Headers on every response: only the dashboard's own scripts run, nothing frames it.
constexpr std::string_view kSecurityHeaders =
    "content-security-policy: default-src 'self'; script-src 'self'; style-src 'self' "
    "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'\r\n"
    "x-content-type-options: nosniff\r\n"
    "referrer-policy: no-referrer\r\n"
    "cache-control: no-store\r\n";

// The pages of the single-page front end: each is index.html, which reads its path and query.
bool IsPage(const std::string& path) {
  static const char* const kPages[] = {"/", "/runs", "/run", "/frontier", "/point", "/compare", "/over-time", "/live"};
  for (const char* p : kPages)
    if (path == p) return true;
  return false;
}

// Equal in time independent of where they differ.
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string CookieValue(const std::string* header, std::string_view name) {
  if (!header) return "";
  std::string_view rest = *header;
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    std::string_view part = rest.substr(0, semi);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=')
      return std::string(part.substr(name.size() + 1));
    if (semi == std::string_view::npos) break;
    rest.remove_prefix(semi + 1);
  }
  return "";
}

// The Host header's name without its port: "127.0.0.1", "localhost", "[::1]".
std::string HostName(const std::string* host) {
  if (!host) return "";
  const std::string& h = *host;
  if (!h.empty() && h.front() == '[') return h.substr(0, h.find(']') + 1);
  return h.substr(0, h.find(':'));
}

}  // namespace

bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  return false;
}

Status ValidateServerOptions(const ServerOptions& o) {
  if (!IsLoopback(o.host) && o.token.empty()) {
    return InvalidArgument("--host " + o.host +
                           " is beyond loopback: give --token SECRET so only holders of it can read "
                           "the results (or bind 127.0.0.1)");
  }
  return Status::Ok();
}

struct Conn {
  int fd = -1;
  std::string in;
  std::string out;
  size_t out_off = 0;
  bool have_head = false;
  size_t head_bytes = 0;
  net::HttpRequest req;
  bool close_after_write = false;
  bool closed = false;
  bool stream = false;          // an event stream: the loop writes new points to it
  int64_t stream_since = 0;
  std::string stream_last;      // the last progress sent, to send only changes
  Nanos stream_keepalive = 0;
};

class DashboardServer::Impl {
 public:
  Impl(const ServerOptions& o, Api& api) : options_(o), api_(api) {}
  ~Impl() {
    for (auto& [fd, c] : conns_) close(fd);
    if (listen_fd_ >= 0) close(listen_fd_);
  }

  Status Bind() {
    FRONTIER_RETURN_IF_ERROR(ValidateServerOptions(options_));
    FRONTIER_ASSIGN_OR_RETURN(net::Listener l, net::ListenTcp(options_.host, options_.port, 128));
    listen_fd_ = l.fd;
    port_ = l.port;
    if (!poller_.ok() || waker_.fd() < 0) return IoError("epoll/eventfd: " + std::string(std::strerror(errno)));
    if (!poller_.Add(listen_fd_, EPOLLIN, &listen_tag_) || !poller_.Add(waker_.fd(), EPOLLIN, &wake_tag_))
      return IoError("epoll_ctl: " + std::string(std::strerror(errno)));
    return Status::Ok();
  }

  Status Run() {
    Nanos next_tick = SteadyClock::Get().Now() + options_.live_interval;
    while (!stop_.load()) {
      const int n = poller_.Wait(next_tick);
      for (int i = 0; i < n; ++i) {
        const epoll_event& ev = poller_.event(i);
        if (ev.data.ptr == &listen_tag_) {
          Accept();
        } else if (ev.data.ptr == &wake_tag_) {
          waker_.Drain();
        } else {
          OnEvent(static_cast<Conn*>(ev.data.ptr), ev.events);
        }
      }
      const Nanos now = SteadyClock::Get().Now();
      if (now >= next_tick) {
        Tick(now);
        next_tick = now + options_.live_interval;
      }
      Reap();
    }
    return Status::Ok();
  }

  void RequestStop() noexcept {
    stop_.store(true);
    waker_.Wake();
  }

  int port() const { return port_; }

 private:
  void Accept() {
    for (;;) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Conn>();
      c->fd = fd;
      if (!poller_.Add(fd, EPOLLIN | EPOLLRDHUP, c.get())) {
        close(fd);
        continue;
      }
      conns_.emplace(fd, std::move(c));
    }
  }

  void OnEvent(Conn* c, uint32_t events) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) Read(c);
    if (!c->closed && (events & EPOLLOUT)) Flush(c);
  }

  void Read(Conn* c) {
    char buf[16384];
    for (;;) {
      const ssize_t n = recv(c->fd, buf, sizeof buf, 0);
      if (n > 0) {
        c->in.append(buf, static_cast<size_t>(n));
        if (c->in.size() > options_.max_body_bytes + kMaxHead) break;
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        Close(c);
        return;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    }
    Process(c);
  }

  void Process(Conn* c) {
    while (!c->closed && !c->stream && !c->close_after_write) {
      if (!c->have_head) {
        const net::HeadResult h = net::ParseRequestHead(c->in, kMaxHead, c->req, /*keep_headers=*/true);
        if (h.state == net::ParseState::kNeedMore) return;
        if (h.state == net::ParseState::kError) {
          Send(c, h.error_status, "text/plain; charset=utf-8", h.error_message + "\n", false);
          return;
        }
        if (c->req.content_length > static_cast<int64_t>(options_.max_body_bytes)) {
          Send(c, 413, kJson,
               SafeJson({{"error", "the upload is " + std::to_string(c->req.content_length) +
                                       " bytes; at most " + std::to_string(options_.max_body_bytes) + " are taken"}}),
               false);
          return;
        }
        c->have_head = true;
        c->head_bytes = h.head_bytes;
      }
      const size_t need = c->head_bytes + static_cast<size_t>(c->req.content_length);
      if (c->in.size() < need) return;
      c->req.body = c->in.substr(c->head_bytes, static_cast<size_t>(c->req.content_length));
      c->in.erase(0, need);
      c->have_head = false;
      Handle(c, c->req);
    }
  }

  // Whether the request may be served; answers it when not.
  bool Admit(Conn* c, const net::HttpRequest& req, Result<Query>& query) {
    if (options_.token.empty()) {
      const std::string host = HostName(req.Header("host"));
      if (!IsLoopback(host)) {
        Send(c, 403, kJson,
             SafeJson({{"error", "Host '" + host + "' is not a loopback name; open the dashboard at "
                                 "http://127.0.0.1:" + std::to_string(port_) + "/ (or give --token)"}}),
             req.keep_alive);
        return false;
      }
    } else {
      const std::string* auth = req.Header("authorization");
      const bool bearer = auth && auth->rfind("Bearer ", 0) == 0 && SameSecret(auth->substr(7), options_.token);
      const bool cookie = SameSecret(CookieValue(req.Header("cookie"), kCookie), options_.token);
      if (!bearer && !cookie) {
        if (query.ok() && query->Has("token") && SameSecret(query->Text("token"), options_.token) &&
            req.method == "GET") {
          // Trade the token in the link for a cookie, and drop it from the address bar.
          std::string rest;
          std::string_view q = req.query;
          while (!q.empty()) {
            const size_t amp = q.find('&');
            std::string_view part = q.substr(0, amp);
            if (part.substr(0, 6) != "token=") rest += (rest.empty() ? "" : "&") + std::string(part);
            q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
          }
          const std::string location = req.target + (rest.empty() ? "" : "?" + rest);
          Send(c, 302, "text/plain; charset=utf-8", "",
               req.keep_alive,
               "location: " + location + "\r\nset-cookie: " + std::string(kCookie) + "=" + options_.token +
                   "; HttpOnly; SameSite=Strict; Path=/\r\n");
          return false;
        }
        Send(c, 401, kJson,
             SafeJson({{"error", "this dashboard needs its token: open it once as /?token=TOKEN, or send "
                                 "'Authorization: Bearer TOKEN'"}}),
             req.keep_alive, "www-authenticate: Bearer\r\n");
        return false;
      }
    }
    if (req.method == "POST") {
      const std::string* origin = req.Header("origin");
      const std::string* host = req.Header("host");
      if (origin && (!host || *origin != "http://" + *host)) {
        Send(c, 403, kJson, SafeJson({{"error", "a POST must come from the dashboard's own page"}}), req.keep_alive);
        return false;
      }
    }
    return true;
  }

  void Handle(Conn* c, const net::HttpRequest& req) {
    Result<Query> query = Query::Parse(req.query);
    if (!Admit(c, req, query)) return;
    const std::string& path = req.target;
    if (path == "/api/live/stream") {
      StartStream(c, req, query);
      return;
    }
    if (path.rfind("/api/", 0) == 0) {
      ApiResponse r = api_.Handle(req.method, path, req.query, req.body);
      Send(c, r.status, kJson, r.body, req.keep_alive);
      return;
    }
    if (path == "/favicon.ico") {
      Send(c, 204, "text/plain", "", req.keep_alive);
      return;
    }
    if (req.method != "GET") {
      Send(c, 405, "text/plain; charset=utf-8", "only GET here\n", req.keep_alive);
      return;
    }
    const Asset* asset = FindAsset(IsPage(path) ? "/assets/index.html" : path);
    if (!asset) {
      Send(c, 404, "text/plain; charset=utf-8", "no page at " + path + "; start at /\n", req.keep_alive);
      return;
    }
    Send(c, 200, asset->content_type, asset->data, req.keep_alive);
  }

  void StartStream(Conn* c, const net::HttpRequest& req, Result<Query>& query) {
    Result<std::optional<int64_t>> since = query.ok() ? query->Index("since") : Result<std::optional<int64_t>>(query.status());
    if (!since.ok()) {
      Send(c, 400, kJson, SafeJson({{"error", since.status().message()}}), req.keep_alive);
      return;
    }
    c->stream = true;
    c->stream_since = since->value_or(0);
    c->out += "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
              "transfer-encoding: chunked\r\n";
    c->out += kSecurityHeaders;
    c->out += "\r\n";
    c->stream_last.clear();
    SendLive(c, SteadyClock::Get().Now(), /*force=*/true);
  }

  // Writes what is new for one stream: points after its last id, or a changed progress.
  void SendLive(Conn* c, Nanos now, bool force) {
    Result<nlohmann::json> live = api_.Live(c->stream_since);
    std::string event;
    if (!live.ok()) {
      event = "event: failure\ndata: " + SafeJson({{"error", live.status().message()}}) + "\n\n";
    } else {
      const std::string progress = SafeJson((*live)["progress"]);
      if (force || !(*live)["points"].empty() || progress != c->stream_last) {
        c->stream_last = progress;
        c->stream_since = (*live)["last_id"].get<int64_t>();
        event = "data: " + SafeJson(*live) + "\n\n";
      } else if (now - c->stream_keepalive > 15 * kNanosPerSecond) {
        event = ": keep-alive\n\n";  // a comment: proxies and the browser see the stream alive
      }
    }
    if (event.empty()) return;
    c->stream_keepalive = now;
    net::AppendChunk(c->out, event);
    Flush(c);
  }

  void Tick(Nanos now) {
    for (auto& [fd, c] : conns_)
      if (c->stream && !c->closed) SendLive(c.get(), now, false);
  }

  void Send(Conn* c, int status, std::string_view type, std::string_view body, bool keep_alive,
            std::string_view extra = {}) {
    std::string headers(kSecurityHeaders);
    headers += extra;
    c->out += net::FormatResponse(status, type, body, keep_alive, headers);
    if (!keep_alive) c->close_after_write = true;
    Flush(c);
  }

  void Flush(Conn* c) {
    while (c->out_off < c->out.size()) {
      const ssize_t n = send(c->fd, c->out.data() + c->out_off, c->out.size() - c->out_off, MSG_NOSIGNAL);
      if (n > 0) {
        c->out_off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        poller_.Modify(c->fd, EPOLLIN | EPOLLRDHUP | EPOLLOUT, c);
        return;
      }
      if (n < 0 && errno == EINTR) continue;
      Close(c);
      return;
    }
    c->out.clear();
    c->out_off = 0;
    poller_.Modify(c->fd, EPOLLIN | EPOLLRDHUP, c);
    if (c->close_after_write) Close(c);
  }

  void Close(Conn* c) {
    if (c->closed) return;
    c->closed = true;
    poller_.Remove(c->fd);
  }

  // Frees closed connections outside the event loop's pass (their pointers may be in its events).
  void Reap() {
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (it->second->closed) {
        close(it->first);
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
  }

  ServerOptions options_;
  Api& api_;
  int listen_fd_ = -1;
  int port_ = 0;
  net::Poller poller_;
  net::Waker waker_;
  char listen_tag_ = 0, wake_tag_ = 0;
  std::atomic<bool> stop_{false};
  std::map<int, std::unique_ptr<Conn>> conns_;
};

Result<std::unique_ptr<DashboardServer>> DashboardServer::Create(const ServerOptions& options, Api& api) {
  auto impl = std::make_unique<Impl>(options, api);
  FRONTIER_RETURN_IF_ERROR(impl->Bind());
  return std::unique_ptr<DashboardServer>(new DashboardServer(std::move(impl)));
}

DashboardServer::DashboardServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DashboardServer::~DashboardServer() = default;
int DashboardServer::port() const { return impl_->port(); }
Status DashboardServer::Run() { return impl_->Run(); }
void DashboardServer::RequestStop() noexcept { impl_->RequestStop(); }

}  // namespace frontier::dashboard
