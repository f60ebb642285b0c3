// server_impl.h: internals of Server (server.h), shared by server.cc (setup,
// the loop's wakeups and closes, figures) and generation.cc (HTTP routing,
// the OpenAI endpoints, and writing each generation's events). Not part of
// the serve layer's interface.
//
// Server::Impl is a handler on net::HttpServer: the loop calls OnRequest,
// NextWakeup, OnWakeup, OnClosed and OnServerError, all on its one thread.
// A generation's connection is held (HttpExchange::Hold) from admission to
// its last event; the loop reads no further request on it meanwhile.
//
// Thread safety: everything here belongs to the loop thread, except the
// members marked "any thread".
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "net/http_server.h"
#include "serve/http.h"
#include "serve/metrics.h"
#include "serve/openai.h"
#include "serve/server.h"

namespace frontier::serve {

struct Generation {
  uint64_t id = 0;
  net::ConnId conn = 0;
  ApiKind kind = ApiKind::kCompletions;
  bool stream = false, chunked = true, include_usage = false, continuous_usage = false;
  bool keep_alive = true;
  int64_t prompt_tokens = 0;
  int64_t max_tokens = 0;       // the request's limit
  int64_t target_tokens = 0;    // what the engine was told to make: min(max, natural EOS)
  int64_t generated = 0;
  std::vector<std::string> stop;
  size_t holdback = 0;          // longest stop string - 1: text kept back while streaming
  std::string text;             // generated so far (truncated at a stop string)
  size_t sent_len = 0;          // bytes of text already streamed
  std::string head;             // ResponseHead()
  uint64_t token_seed = 0;
  bool role_sent = false;
  Nanos arrival_ns = 0, first_ns = -1, last_ns = -1;
  int64_t disconnect_after = -1;  // fault: close once this many tokens are generated
  int64_t stall_at = -1;          // fault: the event holding this token (1-based) stalls
  Nanos stall_ns = 0;             // delay added to this and every later event
  std::string out;                // stream bytes of this wakeup, sent once by FlushDirty
  bool dirty = false;             // in Impl::dirty_
  std::vector<Nanos> pending_due; // due times of events queued but not yet written
  RequestTrace trace;
};

// An event held back by an injected stall.
struct Delayed {
  Nanos at;
  Emission e;
  bool operator>(const Delayed& o) const { return at > o.at; }
};

class Server::Impl : public net::HttpHandler {
 public:
  Impl(const ServeOptions& o, std::unique_ptr<TimingSource> t, const Clock& clock)
      : options_(o), timing_(std::move(t)), clock_(clock) {}
  ~Impl() override;

  Status Bind();
  Status Start();
  void RequestStop() noexcept;
  void Drain(Nanos grace_ns);
  void Wait();

  // ---- net::HttpHandler (server.cc, but OnRequest: generation.cc) ----
  void OnRequest(net::HttpExchange& x, net::HttpRequest& req) override;
  // The next emission's due time (or a stall's end, or the drain's deadline).
  Nanos NextWakeup() override;
  // Writes the emissions due by `now`; then the drain's progress.
  void OnWakeup(Nanos now) override;
  // Aborts the connection's generation; counts it when the client left.
  void OnClosed(net::ConnId id, net::CloseReason why) override;
  // OpenAI-shaped JSON errors for the loop's own answers (400, 413, 503, ...).
  net::ErrorAnswer OnServerError(int status, std::string_view message) override;

  // server.cc
  void RunDue(Nanos now);
  void PublishSnapshot();  // copies the figures Snapshot() reads

  // generation.cc: HTTP requests and generations.
  void HandleRequest(net::HttpExchange& x, net::HttpRequest& req);
  void HandleGeneration(net::HttpExchange& x, net::HttpRequest& req, ApiKind kind);
  void Respond(net::HttpExchange& x, int status, std::string_view content_type, std::string_view body,
               bool keep_alive, std::string_view extra_headers = {});
  void RespondError(net::HttpExchange& x, const ApiError& e, bool keep_alive, std::string_view extra_headers = {});
  void Deliver(const Emission& e, bool from_stall_queue);
  void FinishGeneration(Generation& g, const char* reason);
  // Records when g's pending events were written (lateness metric, trace).
  void MarkWritten(Generation& g, Nanos written);
  // Sends what this wakeup queued on each stream, one Send per stream.
  void FlushDirty();
  void AbortGeneration(uint64_t id);

  ServeOptions options_;
  std::unique_ptr<TimingSource> timing_;
  const Clock& clock_;  // every time the server reads; the HTTP loop's clock too
  std::unique_ptr<net::HttpServer> http_;  // port(), Stats(), RequestStop(), Wake(): any thread
  std::thread thread_;
  bool started_ = false;
  std::atomic<Nanos> drain_deadline_{-1};  // any thread: set by Drain()
  bool listening_ = true;

  std::unordered_map<uint64_t, Generation> gens_;
  std::unordered_map<net::ConnId, uint64_t> gen_of_conn_;  // a held connection's generation
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<Delayed>> delayed_;
  std::vector<Emission> due_;      // scratch for RunDue
  std::vector<uint64_t> dirty_;    // generations with bytes queued by this wakeup
  std::string send_scratch_;       // FlushDirty's buffer
  uint64_t next_id_ = 1;
  ServeMetrics metrics_;

  mutable std::mutex shared_mu_;  // any thread: guards the members below
  std::vector<RequestTrace> traces_;
  ServerSnapshot snapshot_;
};

}  // namespace frontier::serve
