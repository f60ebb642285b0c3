// scripted_server.h: a local HTTP/1.1 server that streams OpenAI-style SSE
// responses on a per-request script, and records the monotonic time of every
// write it makes, so tests and benchmarks compare the client's timestamps with
// the server's emission times (same machine, same steady clock).
//
//   ScriptedServer::Options o;
//   o.script = [](const RequestInfo&) { Script s; s.ttft = 50 * kNanosPerMilli; return s; };
//   auto server = ScriptedServer::Start(o);      // 127.0.0.1, ephemeral port
//   ... client against (*server)->base_url() ...
//   for (auto& r : (*server)->Served()) ... r.emissions[i].t_ns ...
//
// A script says when the first content event is written (ttft, from the end
// of the request), the gap between later ones, how many tokens each carries
// (a repeating pattern: {1,1,1,1,3} = every fifth event carries 3), whether
// usage is sent (in every chunk and/or at the end), and at most one fault.
// Each content event's text is k words for k tokens. GET /v1/models lists the
// model (with llama.cpp's "meta.n_vocab" when Options::n_vocab is set). Chat requests
// (/v1/chat/completions) first get a role-only delta at header time, which is
// not a token. Requests to /completion get llama.cpp's native stream: chunks
// {"content", "tokens": [k ids], "stop": false, "tokens_predicted",
// "tokens_evaluated"}, then one {"stop": true, ..., "timings": {...}} (the
// script's ttft as prompt_ms, its later gaps as predicted_ms) and no [DONE].
// Requests to /generate (SGLang), /generate_stream (TGI) and
// /v2/models/{m}/generate_stream (Triton) get those engines' native streams
// (native_wire.h): SGLang's meta_info is left out when usage_continuous is
// false, TGI's details.generated_tokens when usage_final is false; TGI and
// Triton send one token per event. Responses use chunked transfer encoding
// and keep-alive.
//
// Faults: kReset (accept, then reset the connection without a response),
// kCloseAfterHead (a 200 chunked head, then close), kErrorField (llama.cpp's
// `error: {"code":...,"message":...}` SSE field, after `fault_after` events),
// kHttpError (status + body), kCloseMidStream and kStall (after
// `fault_after` content events), kMalformedSse, kMalformedJson and kErrorEvent
// (sent after `fault_after` content events, in the request's dialect; its
// words include "engine died"), kZeroTokens (a finished stream
// with no content).
//
// Thread safety: the server runs `threads` event loops (epoll, one shared listener)
// on their own threads; `script` is called from them (make it thread-safe
// when threads > 1). Public methods are safe from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace frontier::testing {

enum class Fault {
  kNone,
  kReset,
  kHttpError,
  kCloseMidStream,
  kStall,
  kMalformedSse,
  kMalformedJson,
  kErrorEvent,
  kZeroTokens,
  kCloseAfterHead,   // a 200 head (chunked), then the connection closes
  kErrorField,       // an SSE `error: {...}` field, as llama.cpp's server streams errors
};

struct Script {
  Nanos ttft = 50 * kNanosPerMilli;       // request received -> first content event
  Nanos interval = 10 * kNanosPerMilli;   // between content events
  int32_t events = 10;                    // content events
  std::vector<int32_t> tokens_pattern = {1};
  bool usage_continuous = true;           // usage in every chunk
  bool usage_final = true;                // a usage-only chunk before [DONE]
  int32_t events_per_write = 1;           // >1: several events in one write (one timestamp)
  bool keepalive_comments = false;        // ": ping" comment lines between events
  bool crlf = false;                      // CRLF line ends in the SSE framing
  Fault fault = Fault::kNone;
  int32_t fault_after = 0;                // content events written before the fault
  int http_status = 500;                  // kHttpError
  std::string error_body = "{\"error\": {\"message\": \"scripted failure\"}}";
  // >= 0: every usage reports this completion_tokens (a server whose usage
  // contradicts the events it sends).
  int64_t usage_completion_tokens = -1;
};

struct RequestInfo {
  std::string method, path, body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string Header(const std::string& lower_name) const;
};

// One content event as written: the time just before the write() that carried
// it, and its token count.
struct Emission {
  Nanos t_ns = 0;
  int32_t tokens = 0;
};

struct ServedRequest {
  RequestInfo request;
  Nanos received_ns = 0;              // the request's last byte was read
  std::vector<Emission> emissions;    // content events only
  Nanos finished_ns = -1;             // just before the write of the response's last bytes
  bool completed = false;             // the response was written to the end
};

class ScriptedServer {
 public:
  struct Options {
    std::function<Script(const RequestInfo&)> script = [](const RequestInfo&) { return Script{}; };
    int threads = 1;
    bool record = true;                 // keep ServedRequest records (off for long benchmarks)
    std::string model = "scripted-model";
    // > 0: GET /v1/models reports this vocabulary size as llama.cpp's
    // server does ("meta": {"n_vocab": N}); 0: /v1/models has no "meta".
    int64_t n_vocab = 0;
    // When set, GET /metrics answers 200 with its text (a Prometheus
    // exposition: a scripted server's metrics, or an exporter's); else the
    // path is a scripted request like any other. Called on a loop's thread.
    std::function<std::string()> metrics;
  };

  // Listens on 127.0.0.1 on an ephemeral port and starts the loops.
  static Result<std::unique_ptr<ScriptedServer>> Start(Options options);
  ~ScriptedServer();  // stops the loops and closes every connection

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Finished and in-progress requests so far (copied).
  std::vector<ServedRequest> Served() const;
  // The record of the request carrying "X-Request-Id: <id>", if any.
  bool Find(const std::string& request_id, ServedRequest* out) const;
  int64_t requests() const { return requests_.load(); }
  int64_t content_events() const { return content_events_.load(); }
  int64_t max_connections() const { return max_connections_.load(); }

 private:
  struct Loop;
  ScriptedServer() = default;
  void Record(ServedRequest&& r);

  Options options_;
  int port_ = 0;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<ServedRequest> served_;  // guarded by mu_
  std::atomic<int64_t> requests_{0}, content_events_{0}, connections_{0}, max_connections_{0};
  friend struct Loop;
};

}  // namespace frontier::testing
