// server_impl.h: internals of Server (server.h), shared by server.cc (the
// epoll loop and socket I/O) and generation.cc (HTTP routing and the
// OpenAI endpoints). Not part of the serve layer's interface.
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

#include "net/poller.h"
#include "serve/http.h"
#include "serve/metrics.h"
#include "serve/openai.h"
#include "serve/server.h"

namespace frontier::serve {

// What an epoll registration points at.
struct Handle {
  enum Kind { kListen, kWake, kConn } kind;
  explicit Handle(Kind k) : kind(k) {}
};

struct Connection : Handle {
  Connection() : Handle(kConn) {}
  int fd = -1;
  bool closed = false;
  uint32_t events = 0;          // current epoll interest
  std::string in;               // received; bytes before in_off are consumed
  size_t in_off = 0;
  std::string out;              // to send; out_off bytes of it already sent
  size_t out_off = 0;
  bool close_after_write = false;
  bool linger = false;          // with close_after_write: half-close and drain unread input first
  bool lingering = false;       // half-closed; input is discarded until EOF or the deadline
  bool dirty = false;           // queued in dirty_ for FlushDirty
  bool busy = false;            // a response is under way; later requests wait in `in`
  uint64_t gen_id = 0;          // the generation it streams, 0 if none
  bool have_head = false;       // `req` holds a parsed head whose body is awaited
  HttpRequest req;
};

struct Generation {
  uint64_t id = 0;
  Connection* conn = nullptr;
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
  std::vector<Nanos> pending_due; // due times of events queued but not yet written
  RequestTrace trace;
};

// An event held back by an injected stall.
struct Delayed {
  Nanos at;
  Emission e;
  bool operator>(const Delayed& o) const { return at > o.at; }
};

class Server::Impl {
 public:
  Impl(const ServeOptions& o, std::unique_ptr<TimingSource> t) : options_(o), timing_(std::move(t)) {}
  ~Impl();

  Status Bind();
  Status Start();
  void RequestStop() noexcept;
  void Drain(Nanos grace_ns);
  // Loop side of Drain(): closes the listener once; true when the loop should stop.
  bool DrainDone(Nanos now);
  void Wait();

  // server.cc: loop and I/O.
  void Loop();
  void Accept();
  void OnConnEvent(Connection* c, uint32_t ev);
  void ReadFrom(Connection* c);
  // Sends what is buffered; false if the connection was closed.
  bool Flush(Connection* c);
  void SetInterest(Connection* c, uint32_t events);
  void Close(Connection* c);
  // The client closed or reset `c`: counts a generation it leaves behind
  // (ServeMetrics::client_disconnects), then Close.
  void ClientLeft(Connection* c);
  // After an error answered before the whole request was read: half-close so
  // the client reads the answer instead of a reset, discard what it still
  // sends, close on its EOF or after 2 s.
  void Linger(Connection* c);
  void CloseExpiredLingerers(Nanos now);
  void RunDue(Nanos now);
  Nanos NextWakeup() const;
  void PublishSnapshot();  // copies the figures Snapshot() reads

  // generation.cc: HTTP requests and generations.
  void ProcessInput(Connection* c);
  void HandleRequest(Connection* c, HttpRequest& req);
  void HandleGeneration(Connection* c, HttpRequest& req, ApiKind kind);
  void Respond(Connection* c, int status, std::string_view content_type, std::string_view body,
               bool keep_alive, std::string_view extra_headers = {});
  void RespondError(Connection* c, const ApiError& e, bool keep_alive, std::string_view extra_headers = {});
  void Deliver(const Emission& e, bool from_stall_queue);
  void FinishGeneration(Generation& g, const char* reason);
  // Records when g's pending events were written (lateness metric, trace).
  void MarkWritten(Generation& g, Nanos written);
  // Sends what this pass of RunDue queued on each connection.
  void FlushDirty();
  void AbortGeneration(uint64_t id);
  // Called when a connection's response is complete: reads its next request.
  void ResponseDone(Connection* c, bool keep_alive);

  ServeOptions options_;
  std::unique_ptr<TimingSource> timing_;
  int listen_fd_ = -1;
  net::Poller poller_{512};
  net::Waker waker_;  // any thread: RequestStop() and Drain() wake the loop
  int port_ = 0;
  Handle listen_handle_{Handle::kListen}, wake_handle_{Handle::kWake};
  std::thread thread_;
  bool started_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<Nanos> drain_deadline_{-1};  // any thread: set by Drain()
  bool listening_ = true;
  bool accept_paused_ = false;
  Nanos pass_now_ = 0;  // when this pass of the loop began: the admission time of requests read in it

  std::unordered_map<Connection*, std::unique_ptr<Connection>> conns_;
  std::vector<std::unique_ptr<Connection>> graveyard_;  // closed during this batch of events
  std::unordered_map<uint64_t, Generation> gens_;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<Delayed>> delayed_;
  std::vector<Emission> due_;  // scratch for RunDue
  std::vector<Connection*> dirty_;
  // Connections with pipelined requests left over after their turn (ProcessInput's budget).
  std::vector<Connection*> deferred_;
  std::vector<std::pair<Connection*, Nanos>> lingering_;  // half-closed connections and their deadlines  // connections with output queued by this RunDue pass
  uint64_t next_id_ = 1;
  ServeMetrics metrics_;

  mutable std::mutex shared_mu_;  // any thread: guards the members below
  std::vector<RequestTrace> traces_;
  ServerSnapshot snapshot_;
};

}  // namespace frontier::serve
