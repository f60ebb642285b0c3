// Server's setup and its side of the HTTP loop: wakeups (the engine's
// emissions, stalls, a drain), closes and figures. The endpoints are in
// generation.cc; the loop itself is net::HttpServer.
#include "serve/server.h"

#include <algorithm>
#include <cmath>

#include "serve/server_impl.h"

namespace frontier::serve {
namespace {

bool ValidRate(double p) { return p >= 0 && p <= 1; }

}  // namespace

Status ValidateServeOptions(const ServeOptions& o) {
  if (o.model_name.empty()) return InvalidArgument("--served-model-name must not be empty");
  if (o.port < 0 || o.port > 65535) return InvalidArgument("--port must be in [0, 65535], got " + std::to_string(o.port));
  if (o.default_max_tokens < 1) return InvalidArgument("--default-max-tokens must be at least 1");
  if (o.natural_output_len < 0) return InvalidArgument("--natural-output-len must be 0 (off) or more");
  if (o.max_body_bytes < 1024) return InvalidArgument("--max-body-bytes must be at least 1024");
  const FaultOptions& f = o.faults;
  if (!ValidRate(f.error_rate)) return InvalidArgument("--fault-error-rate must be in [0, 1]");
  if (!ValidRate(f.rate_limit_rate)) return InvalidArgument("--fault-429-rate must be in [0, 1]");
  if (!ValidRate(f.disconnect_rate)) return InvalidArgument("--fault-disconnect-rate must be in [0, 1]");
  if (!ValidRate(f.stall_rate)) return InvalidArgument("--fault-stall-rate must be in [0, 1]");
  if (!(f.stall_ms >= 0) || !std::isfinite(f.stall_ms)) return InvalidArgument("--fault-stall-ms must be >= 0");
  return net::ValidateHttpServerOptions(HttpOptionsOf(o));
}

net::HttpServerOptions HttpOptionsOf(const ServeOptions& o) {
  net::HttpServerOptions h = o.http;
  h.host = o.host;
  h.port = o.port;
  h.max_body_bytes = o.max_body_bytes;
  return h;
}

// ---- Server: thin forwarding to Impl -------------------------------------------------------

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Create(const ServeOptions& options,
                                               std::unique_ptr<TimingSource> timing, const Clock& clock) {
  FRONTIER_RETURN_IF_ERROR(ValidateServeOptions(options));
  if (!timing) return InvalidArgument("Server::Create needs a timing source");
  auto impl = std::make_unique<Impl>(options, std::move(timing), clock);
  FRONTIER_RETURN_IF_ERROR(impl->Bind());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::Start() { return impl_->Start(); }
void Server::RequestStop() noexcept { impl_->RequestStop(); }
void Server::Drain(Nanos grace_ns) { impl_->Drain(grace_ns); }
void Server::Wait() { impl_->Wait(); }
void Server::Stop() {
  impl_->RequestStop();
  impl_->Wait();
}
int Server::port() const { return impl_->http_->port(); }
std::string Server::address() const {
  const std::string& h = impl_->options_.host;
  const bool v6 = h.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + h + "]" : h) + ":" + std::to_string(port());
}
std::vector<RequestTrace> Server::TakeTraces() {
  std::lock_guard<std::mutex> lock(impl_->shared_mu_);
  return std::move(impl_->traces_);
}
ServerSnapshot Server::Snapshot() const {
  ServerSnapshot s;
  {
    std::lock_guard<std::mutex> lock(impl_->shared_mu_);
    s = impl_->snapshot_;
  }
  s.open_connections = impl_->http_->Stats().open_connections;
  return s;
}
net::HttpServerStats Server::HttpStats() const { return impl_->http_->Stats(); }

// ---- Setup and teardown --------------------------------------------------------------------

Status Server::Impl::Bind() {
  FRONTIER_ASSIGN_OR_RETURN(http_, net::HttpServer::Create(HttpOptionsOf(options_), *this, clock_));
  PublishSnapshot();
  return Status::Ok();
}

Status Server::Impl::Start() {
  if (started_) return FailedPrecondition("the server is already started");
  started_ = true;
  thread_ = std::thread([this] { (void)http_->Run(); });
  return Status::Ok();
}

void Server::Impl::RequestStop() noexcept {
  if (http_) http_->RequestStop();
}

void Server::Impl::Drain(Nanos grace_ns) {
  drain_deadline_.store(clock_.Now() + std::max<Nanos>(0, grace_ns));
  http_->Wake();  // NextWakeup() now says "at once"
}

void Server::Impl::Wait() {
  if (thread_.joinable()) thread_.join();
}

Server::Impl::~Impl() {
  RequestStop();
  Wait();
}

// ---- The loop's calls ----------------------------------------------------------------------

Nanos Server::Impl::NextWakeup() {
  Nanos next = timing_->NextWakeup();
  if (!delayed_.empty()) next = std::min(next, delayed_.top().at);
  const Nanos drain = drain_deadline_.load();
  if (drain >= 0) next = listening_ || gens_.empty() ? 0 : std::min(next, drain);
  return next;  // on clock_, the loop's clock too
}

void Server::Impl::OnWakeup(Nanos now) {
  // First in the loop's pass: the emissions that fell due, then the pass's
  // requests, admitted at the same `now` (HttpExchange::now()), so after
  // every engine step that ended by then: the order a virtual-time
  // simulation uses, and the sim profile's timeline replays exactly.
  RunDue(now);
  const Nanos drain = drain_deadline_.load();
  if (drain >= 0) {
    if (listening_) {
      http_->StopAccepting();  // later connects are refused
      listening_ = false;
    }
    if (gens_.empty() || now >= drain) http_->RequestStop();  // Run() closes what is left
  }
  PublishSnapshot();
}

void Server::Impl::OnClosed(net::ConnId id, net::CloseReason why) {
  auto it = gen_of_conn_.find(id);
  if (it == gen_of_conn_.end()) return;
  const uint64_t gen = it->second;
  gen_of_conn_.erase(it);
  // The client closed or reset its connection mid-response (a cancelling
  // client); an injected disconnect, a stop or a too-slow reader is not that.
  if (why == net::CloseReason::kPeer && gens_.count(gen) != 0) ++metrics_.client_disconnects;
  AbortGeneration(gen);  // its slot and KV blocks are freed now
  PublishSnapshot();
}

net::ErrorAnswer Server::Impl::OnServerError(int status, std::string_view message) {
  ++metrics_.http_responses[status];
  ApiError e;
  e.status = status;
  e.message = message;
  if (status == 413) e.message += " (--max-body-bytes)";
  if (status == 500 || status == 503) e.type = "server_error";
  net::ErrorAnswer a;
  a.content_type = "application/json";
  a.body = ErrorJson(e);
  return a;
}

void Server::Impl::PublishSnapshot() {
  const EngineStats s = timing_->Stats();
  std::lock_guard<std::mutex> lock(shared_mu_);
  snapshot_.active_requests = static_cast<int64_t>(gens_.size());
  snapshot_.engine_running = s.running;
  snapshot_.engine_waiting = s.waiting;
  snapshot_.kv_usage = s.kv_usage;
  snapshot_.requests_admitted = next_id_ - 1;
  snapshot_.client_disconnects = metrics_.client_disconnects;
}

void Server::Impl::RunDue(Nanos now) {
  while (!delayed_.empty() && delayed_.top().at <= now) {
    const Delayed d = delayed_.top();
    delayed_.pop();
    Deliver(d.e, /*from_stall_queue=*/true);
  }
  due_.clear();
  timing_->Poll(now, due_);
  for (const Emission& e : due_) Deliver(e, /*from_stall_queue=*/false);
  FlushDirty();
}

}  // namespace frontier::serve
