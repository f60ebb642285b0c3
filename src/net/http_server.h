// http_server.h: one fair HTTP/1.1 server loop (accept, request head and
// body, keep-alive, write queue, limits and timeouts) with the application as
// a handler on it. `frontier dashboard` and `frontier serve` are handlers on
// it (docs/limits.md, "HTTP servers"). A handler whose answers are timed by
// something else (serve's engine) holds them (HttpExchange::Hold), names the
// time it next has work (HttpHandler::NextWakeup, the loop's wait deadline),
// and writes them from OnWakeup with Send / Finish.
//
//   class Hello : public net::HttpHandler {
//     void OnRequest(net::HttpExchange& x, net::HttpRequest& req) override {
//       x.Respond(200, "text/plain", "hi\n", req.keep_alive);
//     }
//   };
//   Hello h;
//   auto s = net::HttpServer::Create(net::HttpServerOptions{}, h);  // binds; port() is known
//   std::thread t([&] { (void)(*s)->Run(); });                     // serves until RequestStop()
//
// Time: every time the loop reads (a pass's `now`, the timeouts below, the
// handler's wakeups) is a reading of the Clock given to Create, the steady
// clock by default. The loop waits, for real, the clock's time left until
// its next deadline, so a clock moved by hand (a test's) is seen at the
// loop's next pass: after any event, or Wake().
//
// What keeps one client from hurting the others:
// - Round robin: a connection pipelining requests gets requests_per_turn of
//   them per pass of the loop, then waits for the other connections' turn.
// - Output bound: while more than max_output_backlog bytes of a connection's
//   answers are unsent (the client is not reading), its further requests are
//   not served and, beyond a head's worth of them, not even read; serving and
//   reading resume as soon as the unsent answers are back under the bound
//   (the client catches up, or the socket takes them at once). A
//   handler-held response (a stream) more than max_pending_output behind is
//   closed.
// - Timeouts: a request's head must arrive within header_timeout of its first
//   byte, and its body must not pause for longer than that; a connection with
//   no request in progress and no bytes moving for idle_timeout is closed. A
//   held response is under neither (the handler's work, not the client's),
//   and the head clock does not run while requests wait on the server (over
//   the output bound, or for their turn): that is the idle clock's.
// - Connection cap: past max_connections a new client is still answered: the
//   connection idle the longest is closed to make room, or, when none is
//   idle, the newcomer gets 503 and is closed. Running out of descriptors
//   does the same, and never makes the loop spin.
// - Framing: net/http1.h's ParseRequestHead (RFC 9112; bare LF, obsolete line
//   folding and a Transfer-Encoding with a Content-Length are refused). A
//   request refused before it was read whole is answered, then the server
//   half-closes and discards the rest for linger_timeout so the client reads
//   the answer rather than a reset.
//
// Thread safety: Run() on one thread, which calls every handler method;
// RequestStop() and Wake() from any thread or a signal handler; port() and
// Stats() from any thread; Send, Finish, Close and StopAccepting from handler
// methods only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"
#include "net/http1.h"

namespace frontier::net {

struct HttpServerOptions {
  std::string host = "127.0.0.1";         // numeric IPv4 or IPv6 address to bind
  int port = 0;                           // 0: any free port (see port())
  int backlog = 1024;
  size_t max_head_bytes = 64 << 10;       // a longer request head gets 431
  size_t max_body_bytes = 8 << 20;        // a longer body gets 413
  int requests_per_turn = 32;             // pipelined requests served per connection per pass
  size_t max_output_backlog = 1 << 20;    // unsent answers above which a connection's requests wait
  size_t max_pending_output = 16 << 20;   // a held response (stream) this far behind is closed
  Nanos header_timeout = 10 * kNanosPerSecond;  // first byte of a head to its last; longest pause in a body
  Nanos idle_timeout = 60 * kNanosPerSecond;    // no request in progress, no bytes moving
  Nanos linger_timeout = 2 * kNanosPerSecond;   // discarding input after an early error answer
  int max_connections = 4096;             // lowered to the descriptor limit less 64 when that is smaller
  bool raise_fd_limit = true;             // raise RLIMIT_NOFILE's soft limit to the hard limit first
};

// InvalidArgument naming the option for a value out of range.
Status ValidateHttpServerOptions(const HttpServerOptions& o);

// Figures since the server started; read with HttpServer::Stats().
struct HttpServerStats {
  int64_t open_connections = 0;
  int64_t effective_max_connections = 0;  // max_connections after the descriptor limit
  uint64_t accepted = 0;
  uint64_t requests = 0;                  // requests given to the handler
  uint64_t evicted_idle = 0;              // closed to make room for a newcomer
  uint64_t refused_503 = 0;               // newcomers answered 503 at the cap
  uint64_t header_timeouts = 0;
  uint64_t idle_timeouts = 0;
  uint64_t too_slow = 0;                  // held responses closed past max_pending_output
  uint64_t read_pauses = 0;               // times a connection's reading was paused by its backlog
  size_t peak_output_buffer = 0;          // the most bytes any connection's output buffer held
};

using ConnId = uint64_t;  // never reused within one server

// Why a connection was closed (HttpHandler::OnClosed).
enum class CloseReason {
  kPeer,      // the client closed or reset it (EOF, hang-up, a failed write)
  kDone,      // the server ended it after an answer (no keep-alive, an error answer, a linger's end)
  kTimeout,   // header_timeout or idle_timeout
  kEvicted,   // idle at the connection cap, closed to make room for a newcomer
  kTooSlow,   // a held response more than max_pending_output behind
  kHandler,   // HttpServer::Close
  kStopped,   // the server stopped
};

class HttpServer;

// One request's answer, given to HttpHandler::OnRequest. Either Respond()
// answers it now, or Hold() keeps the connection for a response written later
// through HttpServer::Send / Finish (a stream); a request left neither
// answered nor held gets 500.
class HttpExchange {
 public:
  ConnId id() const { return id_; }
  // A whole response with a Content-Length body; `extra_headers` are lines
  // ending in "\r\n". keep_alive false closes the connection after it.
  void Respond(int status, std::string_view content_type, std::string_view body, bool keep_alive,
               std::string_view extra_headers = {});
  // Writes `head_and_first_bytes` and keeps the connection for later
  // HttpServer::Send / Finish calls; no further request on it is read meanwhile.
  void Hold(std::string_view head_and_first_bytes);
  // Whether Respond or Hold was called.
  bool answered() const { return done_; }
  // The clock's time (HttpServer::Create) of the loop's pass that hands the request over:
  // taken after the wait that reported its bytes and before any handler call
  // of the pass, so it is the `now` of that pass's OnWakeup too. Everything
  // the handler's wakeups did up to this time comes before the request.
  Nanos now() const { return now_; }

  // Made by the server for each request.
  HttpExchange(HttpServer& s, ConnId id, Nanos now) : server_(s), id_(id), now_(now) {}

 private:
  HttpServer& server_;
  ConnId id_;
  Nanos now_;
  bool done_ = false;
};

// The server's own answer to a request it refuses (see OnServerError).
struct ErrorAnswer {
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::string extra_headers;  // lines ending in "\r\n"
};

class HttpHandler {
 public:
  static constexpr Nanos kNever = INT64_MAX;  // "no wakeup wanted"
  virtual ~HttpHandler() = default;
  // A whole request (head and body) arrived. Answer through `x`.
  virtual void OnRequest(HttpExchange& x, HttpRequest& req) = 0;
  // The absolute time on the server's clock at which OnWakeup wants to run, or kNever.
  virtual Nanos NextWakeup() { return kNever; }
  // Runs once per loop pass at or after NextWakeup(), first in the pass.
  virtual void OnWakeup(Nanos /*now*/) {}
  // The connection is gone; its id is dead. Runs inside the call that closed
  // it, which may be the handler's own Send or Close.
  virtual void OnClosed(ConnId /*id*/, CloseReason /*why*/) {}
  // The body of an answer the server gives on its own, called once for each:
  // framing and size errors (400, 411, 413, 431, 505), 503 at the connection
  // cap, and 500 for a handler that threw or left a request unanswered.
  // `message` says what was wrong. By default `message` as plain text.
  virtual ErrorAnswer OnServerError(int status, std::string_view message);
};

class HttpServer {
 public:
  // Binds and listens. InvalidArgument for bad options; IoError naming the
  // address when it cannot be bound. `handler` and `clock` must outlive the
  // server; the clock is read from the loop's thread only.
  static Result<std::unique_ptr<HttpServer>> Create(const HttpServerOptions& options, HttpHandler& handler,
                                                    const Clock& clock = SteadyClock::Get());
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Serves until RequestStop(); closes every connection before it returns.
  Status Run();
  void RequestStop() noexcept;
  // Makes the loop ask the handler's NextWakeup() again at once (for a
  // handler whose wakeup time another thread changed).
  void Wake() noexcept;
  int port() const;
  HttpServerStats Stats() const;

  // For held connections, from the loop thread (handler methods): appends
  // bytes and sends what the socket takes. False when the connection is gone
  // (or is closed now, past max_pending_output).
  bool Send(ConnId id, std::string_view bytes);
  // Ends a held response; keep_alive reads the connection's next request
  // (which may call OnRequest before Finish returns), else the connection is
  // closed once its answers are sent.
  void Finish(ConnId id, bool keep_alive);
  // Closes a connection now, dropping what is unsent; OnClosed(id, kHandler)
  // runs before it returns. Unknown or closed ids are ignored.
  void Close(ConnId id);
  // Closes the listening socket: later connects are refused; open
  // connections are served on. For a graceful stop. Idempotent.
  void StopAccepting();

  class Impl;

 private:
  friend class HttpExchange;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace frontier::net
