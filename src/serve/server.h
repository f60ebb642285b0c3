// server.h: `frontier serve`'s OpenAI-compatible HTTP server, in process.
//
//   ServeOptions o;  o.port = 0;  o.model_name = "fixed";
//   FixedProfile p;  p.ttft_ms = 50;  p.itl_ms = 10;
//   auto s = Server::Create(o, std::make_unique<FixedTiming>(p));
//   if (!s.ok()) ...;
//   (*s)->Start();                      // serves on its own thread
//   ... http://127.0.0.1:(*s)->port() ...
//   (*s)->Stop();
//
// The server is a handler on net::HttpServer (net/http_server.h), the one
// fair HTTP/1.1 loop, on a thread of its own: keep-alive, pipelining, the
// header and idle timeouts and the connection cap are the loop's. A
// TimingSource (timing.h) decides when each request's tokens are due; the
// next due time is the loop's wait deadline, and the handler writes each
// stream's due events then (SSE in chunked encoding). Why a hand-written
// epoll loop rather than Boost.Asio: docs/serve.md.
//
// Thread safety: Create/Start/Stop/Wait from one controlling thread;
// RequestStop() is async-signal-safe; Drain(), port(), address(),
// TakeTraces(), Snapshot() and HttpStats() are safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "net/http_server.h"
#include "serve/timing.h"

namespace frontier::serve {

// Seeded fault injection; each request draws its faults from (seed, the
// request's admission number), so the same traffic gets the same faults.
struct FaultOptions {
  double error_rate = 0;       // P(a valid request is answered 500)
  double rate_limit_rate = 0;  // P(a valid request is answered 429, with Retry-After: 1)
  double disconnect_rate = 0;  // P(the connection is closed mid-response)
  double stall_ms = 0;         // length of one stall of a response, ms (0: none)
  double stall_rate = 1.0;     // P(a request stalls) when stall_ms > 0
  uint64_t seed = 0;
};

struct ServeOptions {
  // HttpServerOptions with a listen backlog for a benchmark's burst of connects.
  static net::HttpServerOptions DefaultHttpOptions() {
    net::HttpServerOptions h;
    h.backlog = 4096;
    return h;
  }

  std::string host = "127.0.0.1";        // numeric IPv4 or IPv6 address to bind
  int port = 8000;                       // 0: any free port (see port())
  std::string model_name;                // the name clients must send; required
  uint64_t seed = 0;                     // seeds the synthetic tokens
  int64_t default_max_tokens = 256;      // when a request gives no max_tokens (capped by the context)
  int64_t natural_output_len = 0;        // mean length at which the synthetic model ends with EOS
                                         // (uniform in [N/2, 3N/2]); 0: never, always max_tokens
  size_t max_body_bytes = 8 << 20;       // larger bodies get 413
  // The loop's other limits (net/http_server.h's defaults: header timeout
  // 10 s, idle timeout 60 s, 4,096 connections, a stream 16 MiB behind is
  // closed, ...); its host, port and max_body_bytes are the fields above.
  net::HttpServerOptions http = DefaultHttpOptions();
  bool record_traces = false;            // keep a RequestTrace per request (tests, benchmarks)
  FaultOptions faults;
};

// Fails with InvalidArgument naming the flag.
Status ValidateServeOptions(const ServeOptions& o);

// The loop's options: `o.http` with o's host, port and max_body_bytes.
net::HttpServerOptions HttpOptionsOf(const ServeOptions& o);

// What the server did for one request, in its clock's time (Create).
struct TraceEvent {
  Nanos due_ns = 0;       // when the schedule (plus any injected stall) wanted it written
  Nanos written_ns = 0;   // when send() returned for it
  int32_t tokens = 0;
};
struct RequestTrace {
  uint64_t id = 0;                  // the x-request-id header and the number in the response id
  Nanos arrival_ns = 0;             // request parsed and admitted
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::string finish_reason;        // "stop", "length", or "abort" (client left / fault)
  std::vector<TraceEvent> events;   // content events in order
  std::string body;                 // the request body as received
  std::string text;                 // the generated text as sent (streamed deltas, or the whole answer)
};

struct ServerSnapshot {
  int64_t open_connections = 0;     // as of the HTTP loop's last pass
  int64_t active_requests = 0;      // admitted, not yet finished
  int64_t engine_running = 0, engine_waiting = 0;
  double kv_usage = 0;
  uint64_t requests_admitted = 0;
  // Generations stopped because the client closed its connection
  // mid-response (frontier_serve_client_disconnects_total).
  uint64_t client_disconnects = 0;
};

class Server {
 public:
  // Binds and listens (so port() is known) but does not serve until Start().
  // Fails with InvalidArgument for bad options, IoError when the address
  // cannot be bound (the message names it).
  // Every time the server reads (an admission, a write, the drain's
  // deadline, the HTTP loop's passes and connection timeouts) is a reading
  // of `clock`, which must outlive the server and be safe to read from the
  // loop's thread and Drain()'s. The HTTP loop's waits stay real: it waits
  // the clock's time left until its next deadline.
  static Result<std::unique_ptr<Server>> Create(const ServeOptions& options,
                                                std::unique_ptr<TimingSource> timing,
                                                const Clock& clock = SteadyClock::Get());
  ~Server();  // Stop()s if running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Starts the loop thread. REQUIRES: not started yet.
  Status Start();
  // Asks the loop to stop; returns at once. Safe from a signal handler.
  void RequestStop() noexcept;
  // Graceful stop: stops accepting connections at once (new connects are
  // refused), lets admitted requests finish for up to `grace_ns`, then stops
  // as RequestStop() does. Requests on open keep-alive connections that
  // arrive meanwhile are still served. Safe from any thread, not from a
  // signal handler.
  void Drain(Nanos grace_ns);
  // Blocks until the loop has stopped (after RequestStop, Drain or Stop).
  void Wait();
  // RequestStop() then Wait(); closes every connection. Idempotent.
  void Stop();

  int port() const;
  std::string address() const;  // "http://127.0.0.1:8000"
  // Moves out the traces of requests finished so far (record_traces only).
  // A trace is added just after the response's last byte is written, so a
  // client may see the end of a response slightly before its trace exists.
  std::vector<RequestTrace> TakeTraces();
  // Figures as of the handler's last call (each request, wakeup and close).
  ServerSnapshot Snapshot() const;
  // The HTTP loop's own figures: timeouts, evictions, 503s at the cap.
  net::HttpServerStats HttpStats() const;

  class Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace frontier::serve
