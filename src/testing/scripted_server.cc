#include "testing/scripted_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/ascii.h"
#include "net/http1.h"
#include "net/poller.h"
#include "testing/native_wire.h"

namespace frontier::testing {

std::string RequestInfo::Header(const std::string& lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return "";
}

namespace {

}  // namespace

struct ScriptedServer::Loop {
  struct Conn {
    int fd = -1;
    uint64_t gen = 0;
    std::string in;
    size_t in_off = 0;        // bytes of `in` already parsed
    std::string out;          // bytes not yet accepted by the socket
    bool want_out = false;    // EPOLLOUT is being watched
    bool streaming = false;   // a response is in progress
    Script script;
    ServedRequest served;
    bool chat = false;
    bool native = false;      // llama.cpp's /completion
    internal::NativeWire wire = internal::NativeWire::kNone;  // SGLang, TGI, Triton (native_wire.h)
    int64_t prompt_tokens = 0;
    int32_t sent_events = 0;
    int64_t sent_tokens = 0;
    Nanos next_due = 0;
  };
  struct Timer {
    Nanos due;
    int fd;
    uint64_t gen;
    bool operator>(const Timer& o) const { return due > o.due; }
  };

  ScriptedServer* server = nullptr;
  int listen_fd = -1;
  net::Poller poller{1024};
  std::unordered_map<int, Conn> conns;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers;
  uint64_t next_gen = 1;
  Nanos accept_paused_until = 0;  // > 0 while out of file descriptors

  ~Loop() {
    for (auto& [fd, c] : conns) ::close(fd);
  }

  void Watch(int fd, uint32_t events, bool add) {
    void* tag = reinterpret_cast<void*>(static_cast<intptr_t>(fd));
    if (add) {
      poller.Add(fd, events, tag);
    } else {
      poller.Modify(fd, events, tag);
    }
  }


  void Close(Conn& c, bool record) {
    if (record && c.streaming) server->Record(std::move(c.served));
    const int fd = c.fd;
    poller.Remove(fd);
    ::close(fd);
    conns.erase(fd);
    server->connections_.fetch_sub(1);
  }

  // Writes as much of c.out as the socket takes; false if the peer is gone.
  bool Flush(Conn& c) {
    while (!c.out.empty()) {
      const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (n > 0) {
        c.out.erase(0, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!c.want_out) Watch(c.fd, EPOLLIN | EPOLLOUT, false);
        c.want_out = true;
        return true;
      }
      return false;
    }
    if (c.want_out) Watch(c.fd, EPOLLIN, false);  // only when it changes: one syscall less per write
    c.want_out = false;
    return true;
  }

  std::string Sse(const Conn& c, const std::string& data) const {
    const char* nl = c.script.crlf ? "\r\n" : "\n";
    return "data: " + data + nl + nl;
  }

  // Built by hand (not with a JSON library): the server must outpace the
  // client in the capacity benchmark.
  std::string ChunkJson(const Conn& c, int32_t tokens, bool finish, bool usage) const {
    std::string j;
    j.reserve(256);
    j += c.chat ? "{\"id\":\"cmpl-scripted\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\""
                : "{\"id\":\"cmpl-scripted\",\"object\":\"text_completion\",\"created\":0,\"model\":\"";
    j += server->options_.model;
    j += c.chat ? "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" : "\",\"choices\":[{\"index\":0,\"text\":\"";
    for (int32_t k = 0; k < tokens; ++k) j += " tok";
    j += c.chat ? "\"},\"finish_reason\":" : "\",\"finish_reason\":";
    j += finish ? "\"length\"}]" : "null}]";
    if (usage) {
      const int64_t done = c.script.usage_completion_tokens >= 0 ? c.script.usage_completion_tokens : c.sent_tokens;
      j += ",\"usage\":{\"prompt_tokens\":" + std::to_string(c.prompt_tokens) +
           ",\"completion_tokens\":" + std::to_string(done) +
           ",\"total_tokens\":" + std::to_string(c.prompt_tokens + done) + "}";
    }
    j += "}";
    return j;
  }

  // llama.cpp's native /completion chunk: k tokens (ids 1..), the running
  // counts in every chunk.
  std::string NativeChunk(const Conn& c, int32_t k) const {
    std::string j = "{\"index\":0,\"content\":\"";
    for (int32_t i = 0; i < k; ++i) j += " tok";
    j += "\",\"tokens\":[";
    for (int32_t i = 0; i < k; ++i) j += i ? ",1" : "1";
    j += "],\"stop\":false,\"id_slot\":-1,\"tokens_predicted\":" + std::to_string(c.sent_tokens) +
         ",\"tokens_evaluated\":" + std::to_string(c.prompt_tokens) + "}";
    return j;
  }
  // Its last chunk: no content, stop, the totals and the script's timings
  // (prompt: ttft; generation: the gaps after the first event).
  std::string NativeFinal(const Conn& c) const {
    const Script& s = c.script;
    const double prompt_ms = static_cast<double>(s.ttft) / 1e6;
    const double predicted_ms = static_cast<double>(s.interval) * std::max(0, c.sent_events - 1) / 1e6;
    nlohmann::json j = {{"index", 0}, {"content", ""}, {"tokens", nlohmann::json::array()}, {"stop", true},
                        {"model", server->options_.model}, {"tokens_predicted", c.sent_tokens},
                        {"tokens_evaluated", c.prompt_tokens}, {"stop_type", "limit"},
                        {"timings", {{"prompt_n", c.prompt_tokens}, {"prompt_ms", prompt_ms},
                                     {"predicted_n", c.sent_tokens}, {"predicted_ms", predicted_ms}}}};
    return j.dump();
  }

  void StartResponse(Conn& c, RequestInfo info, Nanos received) {
    c.served = ServedRequest{};
    c.served.request = std::move(info);
    c.served.received_ns = received;
    if (c.served.request.method == "GET" && c.served.request.path == "/v1/models") {
      std::string models = "{\"object\":\"list\",\"data\":[{\"id\":\"" + server->options_.model +
                         "\",\"object\":\"model\",\"owned_by\":\"scripted\"";
      if (server->options_.n_vocab > 0)
        models += ",\"meta\":{\"vocab_type\":2,\"n_vocab\":" + std::to_string(server->options_.n_vocab) + "}";
      models += "}]}";
      c.out += "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
               std::to_string(models.size()) + "\r\n\r\n" + models;
      if (!Flush(c)) Close(c, false);
      return;  // not a scripted request: the script is not asked
    }
    if (c.served.request.method == "GET" && c.served.request.path == "/metrics" && server->options_.metrics) {
      const std::string text = server->options_.metrics();
      c.out += "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
               std::to_string(text.size()) + "\r\n\r\n" + text;
      if (!Flush(c)) Close(c, false);
      return;
    }
    ++server->requests_;
    c.script = server->options_.script(c.served.request);
    c.chat = c.served.request.path.find("chat") != std::string::npos;
    c.native = c.served.request.path == "/completion";
    c.wire = internal::WireForPath(c.served.request.path);
    c.sent_events = 0;
    c.sent_tokens = 0;
    c.prompt_tokens = 0;
    auto body = nlohmann::json::parse(c.served.request.body, nullptr, false);
    if (!body.is_discarded() && body.is_object()) {
      if (body.contains("prompt") && body["prompt"].is_array()) {
        c.prompt_tokens = static_cast<int64_t>(body["prompt"].size());
      } else if (body.contains("prompt") && body["prompt"].is_string()) {
        c.prompt_tokens = static_cast<int64_t>(body["prompt"].get_ref<const std::string&>().size() / 4 + 1);
      }
    }
    if (c.wire != internal::NativeWire::kNone) c.prompt_tokens = internal::NativePromptTokens(c.wire, c.served.request.body);
    const Script& s = c.script;
    if (s.fault == Fault::kReset) {
      linger lg{1, 0};
      ::setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
      Close(c, false);
      return;
    }
    c.streaming = true;
    if (s.fault == Fault::kHttpError) {
      const char* reason = s.http_status == 429 ? "Too Many Requests" : "Error";
      c.out += "HTTP/1.1 " + std::to_string(s.http_status) + " " + reason +
               "\r\nContent-Type: application/json\r\nContent-Length: " +
               std::to_string(s.error_body.size()) + "\r\n\r\n" + s.error_body;
      c.served.completed = true;
      server->Record(std::move(c.served));
      c.streaming = false;
      if (!Flush(c)) Close(c, false);
      return;
    }
    c.out += "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
             "Transfer-Encoding: chunked\r\n\r\n";
    if (s.fault == Fault::kCloseAfterHead) {
      Flush(c);
      c.served.completed = false;
      return Close(c, true);
    }
    if (c.chat) {  // role-only first delta: not a token
      nlohmann::json j = {{"id", "cmpl-scripted"}, {"object", "chat.completion.chunk"},
                          {"model", server->options_.model},
                          {"choices", nlohmann::json::array({{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"finish_reason", nullptr}}})}};
      net::AppendChunk(c.out, Sse(c, j.dump()));
    }
    if (!Flush(c)) return Close(c, true);
    c.next_due = received + s.ttft;
    timers.push({c.next_due, c.fd, c.gen});
  }

  // The due step of a streaming response.
  void Step(Conn& c) {
    const Script& s = c.script;
    const int32_t content_total = s.fault == Fault::kZeroTokens ? 0 : s.events;
    std::string payload;
    std::vector<int32_t> tokens_now;
    bool ended = false;
    for (int32_t w = 0; w < std::max(1, s.events_per_write); ++w) {
      const bool fault_now = s.fault != Fault::kNone && s.fault != Fault::kZeroTokens &&
                             c.sent_events == s.fault_after;
      if (fault_now) {
        switch (s.fault) {
          case Fault::kCloseMidStream:
            if (!payload.empty()) net::AppendChunk(c.out, payload);
            Emit(c, tokens_now);
            c.served.completed = false;
            return Close(c, true);
          case Fault::kStall:
            if (!payload.empty()) net::AppendChunk(c.out, payload);
            Emit(c, tokens_now);
            return;  // never scheduled again; the client gives up
          case Fault::kMalformedSse:
            payload += "this is not an SSE line\n\n";
            break;
          case Fault::kMalformedJson:
            payload += Sse(c, "{\"choices\": [{\"text\": \"unterminated");
            break;
          case Fault::kErrorEvent:
            if (c.wire != internal::NativeWire::kNone) {
              payload += Sse(c, internal::NativeError(c.wire, "engine died"));
              if (!internal::NativeEnd(c.wire).empty()) payload += Sse(c, std::string(internal::NativeEnd(c.wire)));
              break;
            }
            payload += Sse(c, "{\"error\": {\"message\": \"engine died\", \"code\": 500}}");
            break;
          case Fault::kErrorField:
            payload += "error: {\"code\":400,\"message\":\"the prompt has a token id out of the vocabulary\","
                       "\"type\":\"invalid_request_error\"}\n\n";
            break;
          default:
            break;
        }
        ended = true;  // the faulty bytes end the script
        break;
      }
      if (c.sent_events >= content_total && c.wire != internal::NativeWire::kNone) {  // the dialect's end
        if (!internal::NativeEnd(c.wire).empty()) payload += Sse(c, std::string(internal::NativeEnd(c.wire)));
        ended = true;
        break;
      }
      if (c.sent_events >= content_total && c.native) {  // llama.cpp: a stop chunk, no [DONE]
        payload += Sse(c, NativeFinal(c));
        ended = true;
        break;
      }
      if (c.sent_events >= content_total) {  // the end of a normal stream
        if (content_total == 0) payload += Sse(c, ChunkJson(c, 0, true, s.usage_continuous));
        if (s.usage_final)
          payload += Sse(c, "{\"id\":\"cmpl-scripted\",\"model\":\"" + server->options_.model +
                                "\",\"choices\":[],\"usage\":{\"prompt_tokens\":" +
                                std::to_string(c.prompt_tokens) + ",\"completion_tokens\":" +
                                std::to_string(s.usage_completion_tokens >= 0 ? s.usage_completion_tokens
                                                                              : c.sent_tokens) + "}}");
        payload += Sse(c, "[DONE]");
        ended = true;
        break;
      }
      const auto& pat = s.tokens_pattern;
      const bool one_per_event = c.wire == internal::NativeWire::kTgi || c.wire == internal::NativeWire::kTriton;
      const int32_t k = pat.empty() || one_per_event ? 1 : pat[static_cast<size_t>(c.sent_events) % pat.size()];
      c.sent_tokens += k;
      ++c.sent_events;
      if (s.keepalive_comments) payload += s.crlf ? ": ping\r\n\r\n" : ": ping\n\n";
      if (c.wire != internal::NativeWire::kNone) {
        internal::WireEvent e;
        e.prompt_tokens = c.prompt_tokens;
        e.tokens_after = c.sent_tokens;
        e.event_index = c.sent_events - 1;
        e.k = k;
        e.last = c.sent_events == content_total;
        e.counts = c.wire == internal::NativeWire::kSglang ? s.usage_continuous : s.usage_final;
        e.reported_total = s.usage_completion_tokens;
        e.model = server->options_.model;
        payload += Sse(c, internal::NativeEvent(c.wire, e));
      } else {
        payload += Sse(c, c.native ? NativeChunk(c, k) : ChunkJson(c, k, c.sent_events == content_total, s.usage_continuous));
      }
      tokens_now.push_back(k);
    }
    if (!payload.empty()) net::AppendChunk(c.out, payload);
    if (ended && !(s.fault == Fault::kMalformedSse || s.fault == Fault::kMalformedJson ||
                   s.fault == Fault::kErrorEvent || s.fault == Fault::kErrorField)) {
      c.out += "0\r\n\r\n";
      c.served.completed = true;
    }
    Emit(c, tokens_now);
    if (ended) {
      c.served.finished_ns = SteadyClock::MonotonicNow();
      c.streaming = false;
      server->Record(std::move(c.served));
      c.served = ServedRequest{};
      if (!Flush(c)) Close(c, false);
      return;
    }
    if (!Flush(c)) return Close(c, true);
    c.next_due += s.interval;
    timers.push({c.next_due, c.fd, c.gen});
  }

  // Stamps the content events of the bytes queued in c.out, then writes them.
  void Emit(Conn& c, const std::vector<int32_t>& tokens) {
    const Nanos t = SteadyClock::MonotonicNow();  // just before the write that carries them
    for (int32_t k : tokens) {
      if (server->options_.record) c.served.emissions.push_back({t, k});
      server->content_events_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Parses complete requests from c.in; returns false when the connection must close.
  bool OnReadable(Conn& c) {
    char buf[16384];
    while (true) {
      const ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
      if (n > 0) {
        c.in.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return false;
    }
    while (!c.streaming) {
      // Framing from net/http1.h, the parser `frontier serve` uses; c.in_off
      // marks what was consumed, so pipelined requests cost linear time.
      const std::string_view pending = std::string_view(c.in).substr(c.in_off);
      if (pending.empty()) break;
      net::HttpRequest req;
      const net::HeadResult h = net::ParseRequestHead(pending, 64 << 10, req);
      if (h.state == net::ParseState::kError) return false;
      if (h.state == net::ParseState::kNeedMore) break;
      const size_t need = h.head_bytes + static_cast<size_t>(req.content_length);
      if (pending.size() < need) break;
      RequestInfo info;
      info.method = req.method;
      info.path = req.target;
      info.body = std::string(pending.substr(h.head_bytes, static_cast<size_t>(req.content_length)));
      size_t pos = pending.find("\r\n") + 2;
      while (pos < h.head_bytes - 2) {
        const size_t eol = pending.find("\r\n", pos);
        const std::string_view line = pending.substr(pos, eol - pos);
        const size_t colon = line.find(':');
        if (colon != std::string_view::npos) {
          std::string v(line.substr(colon + 1));
          v.erase(0, v.find_first_not_of(' '));
          info.headers.emplace_back(AsciiLower(std::string(line.substr(0, colon))), v);
        }
        pos = eol + 2;
      }
      c.in_off += need;
      const Nanos received = SteadyClock::MonotonicNow();
      c.gen = next_gen++;
      const int fd = c.fd;
      StartResponse(c, std::move(info), received);
      if (conns.find(fd) == conns.end()) return true;  // closed by a fault
    }
    if (c.in_off == c.in.size()) {
      c.in.clear();
      c.in_off = 0;
    }
    return true;
  }

  void Run() {
    while (!server->stop_.load()) {
      // Due steps first.
      Nanos now = SteadyClock::MonotonicNow();
      while (!timers.empty() && timers.top().due <= now) {
        Timer t = timers.top();
        timers.pop();
        auto it = conns.find(t.fd);
        if (it != conns.end() && it->second.gen == t.gen && it->second.streaming) Step(it->second);
      }
      if (accept_paused_until > 0 && now >= accept_paused_until) {
        accept_paused_until = 0;
        Watch(listen_fd, EPOLLIN | EPOLLEXCLUSIVE, true);
      }
      // Wake for the next due step (nanosecond deadline, no timer fd), or
      // soon enough to notice a stop.
      Nanos wake = now + (accept_paused_until > 0 ? 10 : 50) * kNanosPerMilli;
      if (!timers.empty()) wake = std::min(wake, timers.top().due);
      const int n = poller.Wait(wake);
      for (int i = 0; i < n; ++i) {
        const epoll_event& ev = poller.event(i);
        const int fd = static_cast<int>(reinterpret_cast<intptr_t>(ev.data.ptr));
        if (fd == listen_fd) {
          Accept();
          continue;
        }
        auto it = conns.find(fd);
        if (it == conns.end()) continue;
        Conn& c = it->second;
        if (ev.events & EPOLLOUT) {
          if (!Flush(c)) {
            Close(c, true);
            continue;
          }
        }
        if (ev.events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          if (!OnReadable(c)) {
            auto again = conns.find(fd);
            if (again != conns.end()) Close(again->second, true);
          }
        }
      }
    }
  }

  void Accept() {
    while (true) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          // Out of descriptors: stop watching the listener for a moment
          // instead of spinning on it (it stays readable).
          poller.Remove(listen_fd);
          accept_paused_until = SteadyClock::MonotonicNow() + 10 * kNanosPerMilli;
        }
        return;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      Conn& c = conns[fd];
      c.fd = fd;
      c.gen = next_gen++;
      Watch(fd, EPOLLIN, true);
      const int64_t now_open = server->connections_.fetch_add(1) + 1;
      int64_t prev = server->max_connections_.load();
      while (now_open > prev && !server->max_connections_.compare_exchange_weak(prev, now_open)) {
      }
    }
  }
};

Result<std::unique_ptr<ScriptedServer>> ScriptedServer::Start(Options options) {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &rl);
  }
  std::unique_ptr<ScriptedServer> s(new ScriptedServer());
  s->options_ = std::move(options);
  const int threads = std::max(1, s->options_.threads);
  // One listening socket shared by every loop (EPOLLEXCLUSIVE wakes one).
  // Not SO_REUSEPORT: two processes of the same user binding port 0 with it
  // can be given the same port and would split each other's connections.
  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(lfd, 4096) != 0) {
    const std::string err = std::strerror(errno);
    if (lfd >= 0) ::close(lfd);
    return Unavailable("scripted server: cannot listen on 127.0.0.1: " + err);
  }
  socklen_t len = sizeof(addr);
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len);
  s->port_ = ntohs(addr.sin_port);
  s->listen_fd_ = lfd;
  for (int i = 0; i < threads; ++i) {
    auto loop = std::make_unique<Loop>();
    loop->server = s.get();
    loop->listen_fd = lfd;
    loop->Watch(lfd, EPOLLIN | EPOLLEXCLUSIVE, true);
    s->loops_.push_back(std::move(loop));
  }
  for (auto& l : s->loops_) s->threads_.emplace_back([loop = l.get()] { loop->Run(); });
  return s;
}

ScriptedServer::~ScriptedServer() {
  stop_.store(true);
  for (auto& t : threads_) t.join();
  loops_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void ScriptedServer::Record(ServedRequest&& r) {
  if (!options_.record) return;
  std::lock_guard<std::mutex> lock(mu_);
  served_.push_back(std::move(r));
}

std::vector<ServedRequest> ScriptedServer::Served() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

bool ScriptedServer::Find(const std::string& request_id, ServedRequest* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& r : served_) {
    if (r.request.Header("x-request-id") == request_id) {
      *out = r;
      return true;
    }
  }
  return false;
}

}  // namespace frontier::testing
