// server.h: `frontier dashboard`'s HTTP server: the pages, their embedded
// assets, the JSON API (api.h) and a server-sent event stream of new points,
// on one thread over net::Poller with net/http1.h framing (the toolkit
// `frontier serve` uses).
//
//   auto s = DashboardServer::Create(options, api);   // binds; port() is known
//   std::thread t([&] { (void)(*s)->Run(); });         // serves until RequestStop()
//   ... (*s)->RequestStop(); t.join();
//
// Safety: it binds loopback unless told otherwise, and anything else needs a
// token (Create refuses without one). With a token every request must carry
// it as "Authorization: Bearer T" or the cookie frontier_token=T; opening a
// page with ?token=T sets that cookie (HttpOnly, SameSite=Strict) and
// redirects to the page without it. Without a token, only requests whose Host
// is a loopback name are served (a page on another site cannot reach the
// dashboard through DNS rebinding), and a POST with an Origin must come from
// the dashboard's own. Every response carries a Content-Security-Policy that
// allows only the dashboard's own scripts.
//
// Thread safety: Run on one thread; RequestStop() from any thread or a signal
// handler; port() and Stats() from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "dashboard/api.h"
#include "net/http_server.h"

namespace frontier::dashboard {

struct ServerOptions {
  std::string host = "127.0.0.1";           // numeric IPv4 or IPv6 address to bind
  int port = 8050;                          // 0: any free port (see port())
  std::string token;                        // required when host is not loopback
  size_t max_body_bytes = 64 << 20;         // an import larger than this gets 413
  Nanos live_interval = 500 * kNanosPerMilli;  // how often the event stream looks for new points
  // Connection limits and timeouts (defaults in net/http_server.h); its host,
  // port and max_body_bytes are taken from the fields above.
  net::HttpServerOptions http;
};

// True for 127.0.0.0/8 and ::1.
bool IsLoopback(const std::string& host);

// InvalidArgument naming --host when it is beyond loopback and there is no
// token (Create checks it too; callers may check before opening anything).
Status ValidateServerOptions(const ServerOptions& options);

// What `frontier dashboard` prints once it listens on `port`: the `runs` of
// database `db` (RedactUrl) it serves, read-only or not, and the address to
// open (with "?token=<your token>" when it has one), each line with its
// newline.
std::string ListeningText(const ServerOptions& options, int port, size_t runs, const std::string& db,
                          bool allow_import);

class DashboardServer {
 public:
  // Binds and listens. InvalidArgument for a non-loopback host without a
  // token or a bad address; IoError naming the address when it cannot bind.
  static Result<std::unique_ptr<DashboardServer>> Create(const ServerOptions& options, Api& api);
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  int port() const;
  // Serves until RequestStop(); returns the error that stopped it, if any.
  Status Run();
  void RequestStop() noexcept;
  // The HTTP server's figures (connections, timeouts, output held): any thread.
  net::HttpServerStats Stats() const;

  class Impl;

 private:
  explicit DashboardServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace frontier::dashboard
