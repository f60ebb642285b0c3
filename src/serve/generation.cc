// HTTP routing and the OpenAI endpoints of Server, and the writing of each
// generation's events; setup and the loop's other calls are in server.cc.
#include <algorithm>
#include <ctime>
#include <exception>
#include <optional>

#include "serve/server_impl.h"
#include "serve/synthetic.h"

namespace frontier::serve {
namespace {

// Fault draw streams (see UnitDraw); fixed so a seed means the same faults forever.
enum : uint64_t { kDraw429 = 1, kDrawError, kDrawDisconnect, kDrawDisconnectAt, kDrawStall, kDrawStallAt, kDrawEos };

int64_t DrawIn(double u, int64_t lo, int64_t hi) {  // uniform integer in [lo, hi]
  if (hi <= lo) return lo;
  return lo + std::min<int64_t>(hi - lo, static_cast<int64_t>(u * static_cast<double>(hi - lo + 1)));
}

const char* kJson = "application/json";

// The answer to a request an injected fault refuses (code "": the status).
ApiError FaultError(int status, const char* type, const char* code, const char* message) {
  ApiError e;
  e.status = status;
  e.type = type;
  e.code = code;
  e.message = message;
  return e;
}

// The request's prompt, max_tokens and min_tokens against the context of
// `ctx` tokens: an error, or (setting `max_tokens`) the most tokens it may
// generate.
std::optional<ApiError> CheckLengths(const GenerationRequest& r, int64_t ctx, int64_t default_max_tokens,
                                     int64_t& max_tokens) {
  if (r.prompt_tokens >= ctx) {
    ApiError e;
    e.param = "prompt";
    e.message = "This model's maximum context length is " + std::to_string(ctx) + " tokens; the prompt has " +
                std::to_string(r.prompt_tokens) + " tokens. Shorten the prompt.";
    return e;
  }
  max_tokens = std::min(default_max_tokens, ctx - r.prompt_tokens);
  if (r.max_tokens) {
    if (r.prompt_tokens + *r.max_tokens > ctx) {
      ApiError e;
      e.param = "max_tokens";
      e.message = "This model's maximum context length is " + std::to_string(ctx) + " tokens. However, you requested " +
                  std::to_string(r.prompt_tokens + *r.max_tokens) + " tokens (" + std::to_string(r.prompt_tokens) +
                  " in the prompt, " + std::to_string(*r.max_tokens) + " for the completion). Reduce max_tokens.";
      return e;
    }
    max_tokens = *r.max_tokens;
  }
  if (r.prompt_tokens + r.min_tokens > ctx) {
    ApiError e;
    e.param = "min_tokens";
    e.message = "This model's maximum context length is " + std::to_string(ctx) + " tokens; the prompt (" +
                std::to_string(r.prompt_tokens) + ") and min_tokens (" + std::to_string(r.min_tokens) +
                ") exceed it. Reduce min_tokens.";
    return e;
  }
  max_tokens = std::max(max_tokens, r.min_tokens);
  return std::nullopt;
}

}  // namespace

void Server::Impl::Respond(net::HttpExchange& x, int status, std::string_view content_type,
                           std::string_view body, bool keep_alive, std::string_view extra_headers) {
  ++metrics_.http_responses[status];
  x.Respond(status, content_type, body, keep_alive, extra_headers);
}

void Server::Impl::RespondError(net::HttpExchange& x, const ApiError& e, bool keep_alive,
                                std::string_view extra_headers) {
  Respond(x, e.status, kJson, ErrorJson(e), keep_alive, extra_headers);
}

void Server::Impl::OnRequest(net::HttpExchange& x, net::HttpRequest& req) {
  const uint64_t admitted = next_id_;
  HandleRequest(x, req);  // a throw is answered by the loop, through OnServerError
  if (next_id_ != admitted) PublishSnapshot();  // not per /health of a pipelined flood
}

void Server::Impl::HandleRequest(net::HttpExchange& x, net::HttpRequest& req) {
  const bool ka = req.keep_alive;
  const std::string& t = req.target;
  auto method_not_allowed = [&](const char* allowed) {
    ApiError e;
    e.status = 405;
    e.message = "use " + std::string(allowed) + " for " + t;
    RespondError(x, e, ka, std::string("allow: ") + allowed + "\r\n");
  };
  if (t == "/v1/completions" || t == "/v1/chat/completions") {
    if (req.method != "POST") return method_not_allowed("POST");
    return HandleGeneration(x, req, t == "/v1/completions" ? ApiKind::kCompletions : ApiKind::kChat);
  }
  if (t == "/health" || t == "/v1/models" || t == "/metrics") {
    if (req.method != "GET") return method_not_allowed("GET");
    if (t == "/health") return Respond(x, 200, kJson, "", ka);
    if (t == "/v1/models")
      return Respond(x, 200, kJson,
                     ModelsJson(options_.model_name, static_cast<int64_t>(std::time(nullptr)),
                                timing_->context_length()),
                     ka);
    const EngineStats s = timing_->Stats();
    metrics_.running = s.running;
    metrics_.waiting = s.waiting;
    metrics_.kv_usage = s.kv_usage;
    metrics_.engine_steps = static_cast<uint64_t>(s.steps);
    metrics_.preemptions = s.preemptions;
    metrics_.prefix_queries = s.prefix_queries;
    metrics_.prefix_hits = s.prefix_hits;
    metrics_.open_connections = http_->Stats().open_connections;
    return Respond(x, 200, "text/plain; version=0.0.4; charset=utf-8", metrics_.Render(options_.model_name), ka);
  }
  ApiError e;
  e.status = 404;
  e.message = "no endpoint " + t + "; this server has POST /v1/completions, POST /v1/chat/completions, "
              "GET /v1/models, GET /health, GET /metrics";
  RespondError(x, e, ka);
}

void Server::Impl::HandleGeneration(net::HttpExchange& x, net::HttpRequest& req, ApiKind kind) {
  const bool ka = req.keep_alive;
  GenerationRequest r;
  if (auto e = ParseGenerationRequest(kind, req.body, r)) return RespondError(x, *e, ka);
  if (!r.model.empty() && r.model != options_.model_name) {
    ApiError e;
    e.status = 404;
    e.code = "model_not_found";
    e.param = "model";
    e.message = "The model `" + r.model + "` does not exist; this server serves `" + options_.model_name + "`";
    return RespondError(x, e, ka);
  }
  const int64_t ctx = timing_->context_length();
  int64_t max_tokens = 0;
  if (auto e = CheckLengths(r, ctx, options_.default_max_tokens, max_tokens)) return RespondError(x, *e, ka);

  const uint64_t id = next_id_++;
  const FaultOptions& f = options_.faults;
  if (f.rate_limit_rate > 0 && UnitDraw(f.seed, kDraw429, id) < f.rate_limit_rate) {
    ++metrics_.faults["rate_limit"];
    return RespondError(x,
                        FaultError(429, "rate_limit_error", "rate_limit_exceeded",
                                   "injected fault (--fault-429-rate): too many requests; retry after 1 s"),
                        ka, "retry-after: 1\r\n");
  }
  if (f.error_rate > 0 && UnitDraw(f.seed, kDrawError, id) < f.error_rate) {
    ++metrics_.faults["error"];
    return RespondError(
        x, FaultError(500, "server_error", "", "injected fault (--fault-error-rate): internal server error"), ka);
  }

  Generation g;
  g.id = id;
  g.conn = x.id();
  g.kind = kind;
  g.stream = r.stream;
  g.chunked = req.minor_version >= 1;
  g.keep_alive = ka && g.chunked;
  g.include_usage = r.include_usage;
  g.continuous_usage = r.continuous_usage;
  g.prompt_tokens = r.prompt_tokens;
  g.max_tokens = max_tokens;
  g.token_seed = Mix64(options_.seed ^ Mix64(r.prompt_hash ^ static_cast<uint64_t>(r.seed.value_or(0))));
  g.target_tokens = max_tokens;
  if (options_.natural_output_len > 0 && !r.ignore_eos) {
    const int64_t n = options_.natural_output_len;
    int64_t natural = DrawIn(UnitDraw(g.token_seed, kDrawEos, 0), (n + 1) / 2, n + n / 2);
    natural = std::max<int64_t>({natural, r.min_tokens, 1});
    g.target_tokens = std::min(max_tokens, natural);
  }
  g.stop = std::move(r.stop);
  for (const auto& s : g.stop) g.holdback = std::max(g.holdback, s.size() - 1);
  if (f.disconnect_rate > 0 && UnitDraw(f.seed, kDrawDisconnect, id) < f.disconnect_rate)
    g.disconnect_after = DrawIn(UnitDraw(f.seed, kDrawDisconnectAt, id), 1, std::max<int64_t>(1, g.target_tokens - 1));
  if (f.stall_ms > 0 && UnitDraw(f.seed, kDrawStall, id) < f.stall_rate)
    g.stall_at = DrawIn(UnitDraw(f.seed, kDrawStallAt, id), 1, g.target_tokens);
  const std::string rid = (kind == ApiKind::kChat ? "chatcmpl-" : "cmpl-") + std::to_string(id);
  g.head = ResponseHead(kind, g.stream, rid, static_cast<int64_t>(std::time(nullptr)), options_.model_name);
  g.arrival_ns = x.now();  // see OnWakeup(): the pass time orders arrivals against step ends

  // Prompt then answer ids, for the engine's prefix cache: the answer's ids
  // are those its text gets when sent back in a later prompt.
  std::vector<int32_t> tokens = std::move(r.prompt_ids);
  tokens.reserve(tokens.size() + static_cast<size_t>(g.target_tokens));
  for (int64_t i = 0; i < g.target_tokens; ++i) tokens.push_back(SyntheticTokenId(g.token_seed, i));
  Status added = timing_->Add(id, static_cast<int32_t>(g.prompt_tokens), static_cast<int32_t>(g.target_tokens),
                              g.arrival_ns, tokens);
  if (!added.ok()) {
    ApiError e;
    e.status = added.code() == StatusCode::kInternal ? 500 : 400;
    e.message = added.message();
    return RespondError(x, e, ka);
  }
  metrics_.prompt_tokens += static_cast<uint64_t>(g.prompt_tokens);
  if (options_.record_traces) {
    g.trace.id = id;
    g.trace.arrival_ns = g.arrival_ns;
    g.trace.prompt_tokens = g.prompt_tokens;
    g.trace.body = req.body;
  }
  const bool stream = g.stream;
  const bool chunked = g.chunked;
  gens_.emplace(id, std::move(g));
  gen_of_conn_[x.id()] = id;
  if (stream) {
    // Headers go out at once, as uvicorn's streaming responses do; tokens follow.
    ++metrics_.http_responses[200];
    x.Hold(FormatStreamHead(chunked, "x-request-id: " + std::to_string(id) + "\r\n"));
  } else {
    x.Hold({});  // the whole answer is written when the last token is due
  }
}

void Server::Impl::Deliver(const Emission& e, bool from_stall_queue) {
  auto it = gens_.find(e.id);
  if (it == gens_.end()) return;  // cancelled or finished early
  Generation& g = it->second;
  if (!from_stall_queue) {
    if (g.stall_ns == 0 && g.stall_at > g.generated && g.stall_at <= g.generated + e.tokens) {
      g.stall_ns = MillisToNanos(options_.faults.stall_ms);
      ++metrics_.faults["stall"];
    }
    if (g.stall_ns > 0) {  // this and every later event are held back by the stall
      Emission held = e;
      held.due_ns = e.due_ns + g.stall_ns;
      delayed_.push({held.due_ns, held});
      return;
    }
  }
  const size_t old_len = g.text.size();
  for (int32_t i = 0; i < e.tokens; ++i) g.text += SyntheticToken(g.token_seed, g.generated + i);
  g.generated += e.tokens;
  metrics_.generation_tokens += static_cast<uint64_t>(e.tokens);

  const char* finish = nullptr;
  if (!g.stop.empty()) {
    // Look for a stop string that ends in the new text.
    const size_t from = old_len > g.holdback ? old_len - g.holdback : 0;
    size_t cut = std::string::npos;
    for (const auto& s : g.stop) cut = std::min(cut, g.text.find(s, from));
    if (cut != std::string::npos) {
      g.text.resize(cut);
      finish = "stop";
    }
  }
  if (!finish && e.last) finish = g.target_tokens < g.max_tokens ? "stop" : "length";
  if (finish && !e.last) timing_->Cancel(g.id);  // frees its slot and KV blocks now

  if (g.disconnect_after > 0 && g.generated >= g.disconnect_after && !finish) {
    ++metrics_.faults["disconnect"];
    http_->Close(g.conn);  // OnClosed aborts the generation: g is gone
    return;
  }
  const Nanos now = clock_.Now();
  if (g.first_ns < 0) g.first_ns = now;
  g.last_ns = now;
  if (g.stream) {
    const Usage usage{g.prompt_tokens, g.generated};
    const Usage* cu = g.continuous_usage ? &usage : nullptr;
    std::string payload;
    if (g.kind == ApiKind::kChat && !g.role_sent) {
      AppendRoleEvent(payload, g.head, cu);
      g.role_sent = true;
    }
    const size_t upto = finish ? g.text.size() : (g.text.size() > g.holdback ? g.text.size() - g.holdback : 0);
    if (upto > g.sent_len || finish) {
      const std::string_view delta =
          std::string_view(g.text).substr(g.sent_len, upto > g.sent_len ? upto - g.sent_len : 0);
      AppendContentEvent(payload, g.kind, g.head, delta, finish, cu);
      if (options_.record_traces) g.trace.text += delta;
      g.sent_len = std::max(g.sent_len, upto);
    }
    if (g.stop.empty()) {  // nothing will search the text: keep only what is unsent (none)
      g.text.clear();
      g.sent_len = 0;
    }
    if (finish) {
      if (g.include_usage) AppendUsageEvent(payload, g.head, usage);
      payload += kDoneEvent;
    }
    AppendBodyPart(g.out, payload, g.chunked);
    if (finish && g.chunked) g.out += kLastChunk;
  }
  g.pending_due.push_back(e.due_ns);
  if (options_.record_traces) g.trace.events.push_back({e.due_ns, 0, e.tokens});
  if (finish) {
    FinishGeneration(g, finish);  // erases g
    return;
  }
  // Written once per wakeup (FlushDirty), so events of one stream that
  // fall due together go out in one send().
  if (!g.dirty) {
    g.dirty = true;
    dirty_.push_back(g.id);
  }
}

void Server::Impl::MarkWritten(Generation& g, Nanos written) {
  for (Nanos due : g.pending_due) metrics_.emission_lag.Observe(NanosToSeconds(std::max<Nanos>(0, written - due)));
  if (options_.record_traces) {
    auto& ev = g.trace.events;
    for (size_t k = ev.size() - std::min(ev.size(), g.pending_due.size()); k < ev.size(); ++k) ev[k].written_ns = written;
  }
  g.pending_due.clear();
}

void Server::Impl::FlushDirty() {
  for (uint64_t id : dirty_) {
    auto it = gens_.find(id);
    if (it == gens_.end()) continue;  // finished (its bytes went with its last event) or aborted
    Generation& g = it->second;
    g.dirty = false;
    send_scratch_.swap(g.out);
    g.out.clear();
    // A failed Send closed the connection, and OnClosed aborted g.
    const bool open = http_->Send(g.conn, send_scratch_);
    send_scratch_.clear();
    if (open) MarkWritten(g, clock_.Now());
  }
  dirty_.clear();
}

void Server::Impl::FinishGeneration(Generation& g, const char* reason) {
  ++metrics_.finished[reason];
  metrics_.ttft.Observe(NanosToSeconds(g.first_ns - g.arrival_ns));
  metrics_.e2e.Observe(NanosToSeconds(g.last_ns - g.arrival_ns));
  if (g.generated > 1) metrics_.tpot.Observe(NanosToSeconds(g.last_ns - g.first_ns) / static_cast<double>(g.generated - 1));
  std::string bytes = std::move(g.out);
  if (!g.stream) {
    ++metrics_.http_responses[200];
    const Usage usage{g.prompt_tokens, g.generated};
    bytes += FormatResponse(200, kJson, FinalBody(g.kind, g.head, g.text, reason, usage), g.keep_alive,
                            "x-request-id: " + std::to_string(g.id) + "\r\n");
  }
  // No longer the connection's generation: a close from here on aborts nothing.
  gen_of_conn_.erase(g.conn);
  const bool open = http_->Send(g.conn, bytes);
  MarkWritten(g, clock_.Now());
  if (options_.record_traces) {
    RequestTrace trace = std::move(g.trace);
    trace.completion_tokens = g.generated;
    trace.finish_reason = reason;
    if (!g.stream) trace.text = g.text;
    std::lock_guard<std::mutex> lock(shared_mu_);
    traces_.push_back(std::move(trace));
  }
  const net::ConnId conn = g.conn;
  const bool keep_alive = g.keep_alive;
  gens_.erase(g.id);  // g is gone from here on
  // Reads the connection's next request, which may be admitted before Finish returns.
  if (open) http_->Finish(conn, keep_alive);
}

void Server::Impl::AbortGeneration(uint64_t id) {
  auto it = gens_.find(id);
  if (it == gens_.end()) return;
  timing_->Cancel(id);
  ++metrics_.finished["abort"];
  if (options_.record_traces) {
    RequestTrace trace = std::move(it->second.trace);
    trace.completion_tokens = it->second.generated;
    trace.finish_reason = "abort";
    std::lock_guard<std::mutex> lock(shared_mu_);
    traces_.push_back(std::move(trace));
  }
  gens_.erase(it);
}

}  // namespace frontier::serve
