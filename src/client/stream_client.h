// stream_client.h: an event-driven HTTP(S) client for streaming LLM
// endpoints: OpenAI-compatible ones, and SGLang's, TGI's, TensorRT-LLM's
// (Triton) and llama.cpp's native APIs (backend.h). One thread carries
// thousands of concurrent streams.
//
// Design: for http:// the client speaks HTTP/1.1 itself on its own epoll
// loop (net/poller.h, net/http1.h: keep-alive connections, chunked
// decoding); for https:// it drives libcurl's multi-socket interface from
// the same kind of loop, for TLS. docs/bench.md says why, with the profile.
// One monotonic timestamp is taken per socket read, right after the read
// returned and before any SSE or JSON parsing, and every SSE event completed
// by that read is stamped with it: parsing and bookkeeping never inflate a
// latency, and no byte is stamped before it arrived.
//
// Per request: POST the body (openai.h), stream the response through the SSE
// framer (sse.h); count token-bearing events; read token counts from `usage`
// when the server sends it (response_stream.h says when usage is not
// trusted). Every request ends exactly once, ok or with a failure:: code
// (core/run_result.h) and a detail:
//   connection refused -> connect; name not resolved -> dns; TLS -> tls;
//   HTTP >= 300 -> http_status (429 -> http_429) with the status and body
//   kept, whatever the body's framing; no connection within connect_timeout
//   -> timeout_connect; no first token within first_token_timeout ->
//   timeout_first_token; not finished within total_timeout -> timeout_total;
//   bad HTTP or SSE framing or JSON -> malformed_stream; an error event in
//   the stream (any dialect's shape) -> http_status with the server's own
//   words; the connection ended before [DONE] (or a finish_reason; for
//   Triton, before the body's end) -> closed_mid_stream, with the status that came; finished without a
//   token-bearing event -> zero_tokens. A kept-alive connection the server
//   closed before answering anything is retried once on a new connection.
//   A request the client abandons on purpose (StreamRequest's
//   cancel_after_tokens, or Cancel) ends cancelled, neither ok nor failed.
//
// Time: every time the client records or compares (sent_ns, the read
// stamps, end_ns, Poll's deadline, the timeouts) is a reading of the Clock
// given to Create (core/clock.h; SteadyClock by default). Its waits in epoll
// stay real: a Poll waits the clock's time left until its deadline, so a
// test that moves a ManualClock sees exactly the stamps and timeouts it set.
//
// Thread safety: not thread-safe; one StreamClient per thread (the clock is
// read from that thread only).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/openai.h"
#include "core/clock.h"
#include "core/run_result.h"
#include "core/status.h"

namespace frontier::client {

struct ClientOptions {
  std::string base_url = "http://127.0.0.1:8000";  // scheme://host:port[/prefix]
  // The API dialect (client/backend.h): openai, sglang, tgi, trtllm or
  // llamacpp, checked against the endpoint; "" infers it from the endpoint.
  std::string backend;
  std::string endpoint = "/v1/completions";
  std::string model;                               // sent as "model"
  std::string api_key;                             // "Authorization: Bearer <key>" when set
  std::vector<std::string> headers;                // extra "Name: value" lines
  std::string extra_body;                          // JSON object merged into each body
  UsageMode usage = UsageMode::kContinuous;
  bool ignore_eos = true;
  bool insecure = false;                           // https: skip certificate checks
  Nanos connect_timeout = 10 * kNanosPerSecond;
  Nanos first_token_timeout = 0;                   // 0: none (the total timeout still applies)
  Nanos total_timeout = 600 * kNanosPerSecond;     // 0: none
  size_t max_error_body = 4096;                    // bytes of an error response kept
  bool send_request_id = true;                     // "X-Request-Id: frontier-<id>"
};

// One request to send. The views must stay valid during Start() only.
struct StreamRequest {
  int64_t id = 0;
  std::span<const int32_t> prompt_token_ids;  // used when non-empty
  std::string_view prompt_text;
  int32_t max_tokens = 16;
  // K > 0: the client leaves after the K-th output token (response_stream.h).
  int32_t cancel_after_tokens = 0;
  // Keep the generated text, for TakeText.
  bool keep_text = false;
};

class StreamClient {
 public:
  using OnDone = std::function<void(RequestRecord&&)>;

  // Validates the options (base URL, endpoint, extra body, header syntax),
  // resolves the host and sets up the loop; raises RLIMIT_NOFILE's soft limit
  // to the hard limit. InvalidArgument names the flag. A host that does not
  // resolve is not an error here: each request then fails with `dns`.
  // `clock` must outlive the client.
  static Result<std::unique_ptr<StreamClient>> Create(const ClientOptions& options,
                                                      const Clock& clock = SteadyClock::Get());
  ~StreamClient();
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  // Queues a request; sent_ns is taken now. The transfer starts at the next
  // Poll. A request that cannot even be built ends at the next Poll as failed
  // (other). Never blocks.
  void Start(const StreamRequest& request);

  // Runs the event loop until `deadline` (absolute, on the clock) or until at
  // least one request ended; ended requests go to `done` before it returns.
  void Poll(Nanos deadline, const OnDone& done);

  // Ends every request in flight with failure `reason`, each handed to `done`.
  void AbortAll(const char* reason, const OnDone& done);

  // Ends request `id` now as cancelled (RequestRecord::cancelled, failure
  // kCancelled): its connection is closed, so the server sees the client
  // leave. The record goes to `done` before it returns. False when `id` is
  // not in flight.
  bool Cancel(int64_t id, const OnDone& done);

  // The generated text of ended request `id` (started with keep_text): its
  // content events' text concatenated as received (completions' text, chat's
  // delta.content), unescaped; moved out, so a second call returns "". Kept
  // until taken: take it for every request that asked.
  std::string TakeText(int64_t id);

  size_t InFlight() const;
  // Safe from any thread: makes a Poll in progress (or the next) return at
  // once, so another thread can hand this client work (loadgen's workers).
  void Wake();
  // The "model" the server named in its stream ("" until one did).
  const std::string& served_model() const;
  // Wake-ups of the loop and SSE events handled so far (for the capacity bench).
  int64_t wakeups() const;
  int64_t events() const;

 private:
  struct Impl;
  explicit StreamClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The failure code for a finished libcurl transfer (https; exposed for tests
// of the cases a local test cannot provoke, such as DNS). `connected` says whether a
// connection was established.
const char* FailureForCurlCode(int curl_code, bool connected);

}  // namespace frontier::client
