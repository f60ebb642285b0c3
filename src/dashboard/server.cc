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

#include "core/redact.h"
#include "dashboard/assets.h"
#include "net/http1.h"
#include "net/http_server.h"

namespace frontier::dashboard {
namespace {

constexpr std::string_view kJson = "application/json; charset=utf-8";
constexpr std::string_view kCookie = "frontier_token";

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

std::string ListeningText(const ServerOptions& o, int port, size_t runs, const std::string& db,
                          bool allow_import) {
  const std::string host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  return "frontier dashboard: " + std::to_string(runs) + " runs in " + RedactUrl(db) +
         (allow_import ? " (import allowed)" : " (read-only)") + "\n  open http://" + host + ":" +
         std::to_string(port) + "/" + (o.token.empty() ? "" : "?token=<your token>") + "   (Ctrl-C stops)\n";
}

// A live event stream: the loop writes new points to it.
struct Stream {
  int64_t since = 0;
  std::string last;          // the last progress sent, to send only changes
  Nanos keepalive = 0;
};

class DashboardServer::Impl : public net::HttpHandler {
 public:
  Impl(const ServerOptions& o, Api& api) : options_(o), api_(api) {}

  Status Bind() {
    FRONTIER_RETURN_IF_ERROR(ValidateServerOptions(options_));
    net::HttpServerOptions h = options_.http;
    h.host = options_.host;
    h.port = options_.port;
    h.max_body_bytes = options_.max_body_bytes;
    FRONTIER_ASSIGN_OR_RETURN(http_, net::HttpServer::Create(h, *this));
    return Status::Ok();
  }

  Status Run() { return http_->Run(); }
  void RequestStop() noexcept { http_->RequestStop(); }
  int port() const { return http_->port(); }
  net::HttpServerStats Stats() const { return http_->Stats(); }

  // ---- net::HttpHandler ----
  void OnRequest(net::HttpExchange& x, net::HttpRequest& req) override { Handle(x, req); }
  Nanos NextWakeup() override { return streams_.empty() ? kNever : next_tick_; }
  void OnWakeup(Nanos now) override {
    Tick(now);
    next_tick_ = now + options_.live_interval;
  }
  void OnClosed(net::ConnId id, net::CloseReason) override { streams_.erase(id); }
  net::ErrorAnswer OnServerError(int status, std::string_view message) override {
    net::ErrorAnswer a = net::HttpHandler::OnServerError(status, message);
    a.extra_headers = kSecurityHeaders;
    return a;
  }

 private:
  // Whether the request may be served; answers it when not.
  bool Admit(net::HttpExchange& c, const net::HttpRequest& req, Result<Query>& query) {
    if (options_.token.empty()) {
      const std::string host = HostName(req.Header("host"));
      if (!IsLoopback(host)) {
        Send(c, 403, kJson,
             SafeJson({{"error", "Host '" + host + "' is not a loopback name; open the dashboard at "
                                 "http://127.0.0.1:" + std::to_string(port()) + "/ (or give --token)"}}),
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

  void Handle(net::HttpExchange& c, const net::HttpRequest& req) {
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

  void StartStream(net::HttpExchange& c, const net::HttpRequest& req, Result<Query>& query) {
    Result<std::optional<int64_t>> since = query.ok() ? query->Index("since") : Result<std::optional<int64_t>>(query.status());
    if (!since.ok()) {
      Send(c, 400, kJson, SafeJson({{"error", since.status().message()}}), req.keep_alive);
      return;
    }
    Stream& st = streams_[c.id()];
    st.since = since->value_or(0);
    std::string head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
        "transfer-encoding: chunked\r\n";
    head += kSecurityHeaders;
    head += "\r\n";
    head += LiveEvent(st, c.now(), /*force=*/true);
    c.Hold(head);
  }

  // The chunk to write next on a stream: points after its last id, or a
  // changed progress, or a keep-alive comment; empty when there is nothing.
  std::string LiveEvent(Stream& st, Nanos now, bool force) {
    Result<nlohmann::json> live = api_.Live(st.since);
    std::string event;
    if (!live.ok()) {
      event = "event: failure\ndata: " + SafeJson({{"error", live.status().message()}}) + "\n\n";
    } else {
      const std::string progress = SafeJson((*live)["progress"]);
      if (force || !(*live)["points"].empty() || progress != st.last) {
        st.last = progress;
        st.since = (*live)["last_id"].get<int64_t>();
        event = "data: " + SafeJson(*live) + "\n\n";
      } else if (now - st.keepalive > 15 * kNanosPerSecond) {
        event = ": keep-alive\n\n";  // a comment: proxies and the browser see the stream alive
      }
    }
    if (event.empty()) return "";
    st.keepalive = now;
    std::string chunk;
    net::AppendChunk(chunk, event);
    return chunk;
  }

  void Tick(Nanos now) {
    std::vector<std::pair<net::ConnId, std::string>> writes;
    for (auto& [id, st] : streams_) {
      std::string chunk = LiveEvent(st, now, false);
      if (!chunk.empty()) writes.emplace_back(id, std::move(chunk));
    }
    // Send may close a stream (OnClosed erases it), so not while iterating.
    for (auto& [id, chunk] : writes) (void)http_->Send(id, chunk);
  }

  void Send(net::HttpExchange& c, int status, std::string_view type, std::string_view body, bool keep_alive,
            std::string_view extra = {}) {
    std::string headers(kSecurityHeaders);
    headers += extra;
    c.Respond(status, type, body, keep_alive, headers);
  }

  ServerOptions options_;
  Api& api_;
  std::unique_ptr<net::HttpServer> http_;
  std::map<net::ConnId, Stream> streams_;
  Nanos next_tick_ = 0;  // on the loop's clock; a first stream is looked at on the next pass
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
net::HttpServerStats DashboardServer::Stats() const { return impl_->Stats(); }

}  // namespace frontier::dashboard
