// stream_probe.h: a minimal HTTP/1.1 client that timestamps every read, for
// checking frontier's HTTP servers from outside (`frontier serve`'s and the
// dashboard's tests, bench/serve_capacity). It is test support, not
// frontier's benchmark client (src/client/): it has no retries, no TLS, and
// does just enough HTTP to stamp each SSE event with the monotonic time of the
// read that completed it. The framing is the client's own: net::ResponseParser
// for the response, client::SseParser (client/sse.h) for the event stream.
//
//   ProbeRequest r{"/v1/completions", R"({"prompt":"hi","max_tokens":4,"stream":true})"};
//   auto results = RunStreams("127.0.0.1", port, {r, r, r}, {});
//
// Thread safety: ResponseReader and ProbeConnection are single-threaded
// values; RunStreams is a pure function of its arguments (it uses its own
// epoll instance and sockets).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "client/sse.h"
#include "net/http1.h"

namespace frontier::testing {

// One SSE event: its data (client::SseParser's: the "data:" lines' values),
// and when its last byte was read. "error:" events are not kept.
struct ProbeEvent {
  Nanos t_ns = 0;
  std::string data;       // empty when ProbeOptions::keep_event_data is false
  bool has_content = false;  // carries non-empty "text" or "content"
};

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked
  std::vector<ProbeEvent> events;              // for text/event-stream bodies
  bool complete = false;                       // the whole response arrived
  bool closed_early = false;                   // the peer closed before it was complete
  Nanos first_byte_ns = -1;
};

// Incremental response reader: feed it bytes as they arrive. The framing
// (status line, headers, Content-Length / chunked / close-delimited bodies)
// is net::ResponseParser's and the events client::SseParser's, the ones the
// benchmark client uses; a body the SSE parser rejects makes the response
// malformed.
class ResponseReader {
 public:
  explicit ResponseReader(bool keep_event_data = true) : keep_data_(keep_event_data), parser_(64 << 10, true) {}
  // Consumes `bytes` read at time `now`. Returns false on a malformed response.
  bool Feed(std::string_view bytes, Nanos now);
  // The peer closed the connection at `now`.
  void OnClose(Nanos now);
  bool done() const { return reply_.complete || reply_.closed_early; }
  HttpReply& reply() { return reply_; }
  // Bytes received after the end of this response (a pipelined next one).
  std::string TakeLeftover() { return std::move(leftover_); }

 private:
  // False when the event stream is malformed (client::SseParser).
  bool AddBody(std::string_view data, Nanos now);
  void Finish();

  bool keep_data_;
  net::ResponseParser parser_;
  HttpReply reply_;
  std::string leftover_;  // received after the end of the response
  client::SseParser sse_;
  bool sse_body_ = false;
};

// A blocking connection with timeouts, for request/response tests.
class ProbeConnection {
 public:
  static Result<ProbeConnection> Connect(const std::string& host, int port);
  ProbeConnection(ProbeConnection&& o) noexcept : fd_(o.fd_), leftover_(std::move(o.leftover_)) { o.fd_ = -1; }
  ProbeConnection& operator=(ProbeConnection&&) = delete;
  ~ProbeConnection();

  Status SendRaw(std::string_view bytes);
  // Reads one whole response (skipping 1xx). Fails with DeadlineExceeded.
  Result<HttpReply> ReadReply(Nanos timeout_ns);
  // True if the server closes the connection within the timeout.
  bool WaitClosed(Nanos timeout_ns);
  int fd() const { return fd_; }

 private:
  explicit ProbeConnection(int fd) : fd_(fd) {}
  int fd_;
  std::string leftover_;
};

// "POST <path> HTTP/1.1" with a JSON body (and Host, Content-Length).
std::string FormatPost(std::string_view path, std::string_view body, bool keep_alive = true);
std::string FormatGet(std::string_view path, bool keep_alive = true);

struct ProbeRequest {
  std::string path;
  std::string body;
  Nanos send_at_ns = 0;   // when to connect and send, from the start of RunStreams
};

struct ProbeOptions {
  Nanos timeout_ns = 60 * kNanosPerSecond;  // for the whole run
  bool keep_event_data = true;              // false: timestamps only (large runs)
  int connects_per_iteration = 256;         // pacing of new connections
};

struct ProbeResult {
  Nanos connect_ns = 0;   // connect() started
  Nanos sent_ns = -1;     // just before the send() that wrote the request's last byte
  HttpReply reply;
  std::string error;      // transport error, if any
};

// Sends each request on its own connection at its send_at_ns (requests must
// be in non-decreasing send_at_ns order; those due together are paced by
// connects_per_iteration), and reads every response to its end. Results are
// in request order. Requests still running at the timeout get error "timeout".
std::vector<ProbeResult> RunStreams(const std::string& host, int port,
                                    const std::vector<ProbeRequest>& requests, const ProbeOptions& options);

}  // namespace frontier::testing
