#include "client/stream_client.h"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "client/sse.h"

namespace frontier::client {
namespace {

constexpr int kMaxEpollEvents = 4096;
// How often requests are checked against their first-token and total deadlines.
constexpr Nanos kDeadlineScan = 2 * kNanosPerMilli;

void RaiseFileLimit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

}  // namespace

const char* FailureForCurlCode(int code, bool connected) {
  switch (static_cast<CURLcode>(code)) {
    case CURLE_OK: return "";
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return failure::kDns;
    case CURLE_COULDNT_CONNECT: return failure::kConnect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED: return failure::kTls;
    case CURLE_OPERATION_TIMEDOUT: return connected ? failure::kTotalTimeout : failure::kConnectTimeout;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2_STREAM: return connected ? failure::kClosedMidStream : failure::kConnect;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING: return failure::kMalformed;
    default: return failure::kOther;
  }
}

struct Transfer {
  void* owner = nullptr;  // the StreamClient::Impl
  CURL* easy = nullptr;
  size_t index = 0;  // position in Impl::active
  RequestRecord rec;
  SseParser sse;
  std::string body;
  curl_slist* headers = nullptr;
  char errbuf[CURL_ERROR_SIZE] = {};
  bool status_checked = false;
  bool http_error = false;
  std::string error_body;
  bool done_seen = false, finish_seen = false, have_usage = false;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  const char* fail = nullptr;
  std::string fail_detail;
};

struct StreamClient::Impl {
  ClientOptions opt;
  BodyOptions body_opt;
  std::string url;
  std::vector<std::string> static_headers;
  CURLM* multi = nullptr;
  int epfd = -1;
  int timerfd = -1;
  Nanos timer_armed = -1;  // absolute time the timerfd is set to, -1 disarmed
  Nanos curl_timer = -1;   // when libcurl wants socket_action(TIMEOUT), -1 none
  Nanos read_time = 0;     // the timestamp of the current read (or wake-up)
  Nanos next_scan = 0;
  std::vector<std::unique_ptr<Transfer>> active;
  std::vector<CURL*> spare_easies;
  std::vector<RequestRecord> finished;  // ended, not yet handed out
  ChunkReader reader;
  std::string served_model;
  int64_t wakeups = 0, events = 0;
  epoll_event ev_buf[kMaxEpollEvents];

  ~Impl() {
    for (auto& t : active) Release(*t);
    for (CURL* e : spare_easies) curl_easy_cleanup(e);
    if (multi) curl_multi_cleanup(multi);
    if (timerfd >= 0) ::close(timerfd);
    if (epfd >= 0) ::close(epfd);
  }

  static int SocketCallback(CURL*, curl_socket_t s, int what, void* userp, void* socketp) {
    auto* self = static_cast<Impl*>(userp);
    if (what == CURL_POLL_REMOVE) {
      ::epoll_ctl(self->epfd, EPOLL_CTL_DEL, s, nullptr);
      curl_multi_assign(self->multi, s, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    ev.data.fd = s;
    if (socketp) {
      if (::epoll_ctl(self->epfd, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT)
        ::epoll_ctl(self->epfd, EPOLL_CTL_ADD, s, &ev);
    } else {
      if (::epoll_ctl(self->epfd, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST)
        ::epoll_ctl(self->epfd, EPOLL_CTL_MOD, s, &ev);
      curl_multi_assign(self->multi, s, self);  // any non-null marker
    }
    return 0;
  }

  static int TimerCallback(CURLM*, long timeout_ms, void* userp) {
    auto* self = static_cast<Impl*>(userp);
    self->curl_timer =
        timeout_ms < 0 ? -1 : SteadyClock::MonotonicNow() + static_cast<Nanos>(timeout_ms) * kNanosPerMilli;
    return 0;
  }

  static size_t WriteCallback(char* p, size_t size, size_t n, void* userp) {
    auto* t = static_cast<Transfer*>(userp);
    auto* self = static_cast<Impl*>(t->owner);
    // The timestamp of this read: libcurl calls here right after recv()
    // returned these bytes, before any SSE or JSON parsing. Taken here, not
    // before the read (when epoll_wait returned, or before
    // curl_multi_socket_action): a thread preempted between such a stamp and
    // the recv would stamp bytes that arrived in between before the server
    // wrote them. Stamped here the error can only be late, never early.
    self->read_time = SteadyClock::MonotonicNow();
    return self->OnBytes(*t, std::string_view(p, size * n));
  }

  size_t OnBytes(Transfer& t, std::string_view bytes) {
    if (!t.status_checked) {
      long code = 0;
      curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
      t.rec.http_status = static_cast<int>(code);
      t.http_error = code >= 300;
      t.status_checked = true;
    }
    if (t.http_error) {
      const size_t room = opt.max_error_body > t.error_body.size() ? opt.max_error_body - t.error_body.size() : 0;
      t.error_body.append(bytes.substr(0, room));
      return bytes.size();
    }
    const bool ok = t.sse.Feed(bytes, [&](std::string& data) { return OnEvent(t, data); });
    if (!ok) {
      t.fail = failure::kMalformed;
      t.fail_detail = t.sse.error();
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    return t.fail ? 0 : bytes.size();
  }

  // One SSE event's data. Returns false to stop the stream.
  bool OnEvent(Transfer& t, std::string& data) {
    ++events;
    if (data == "[DONE]") {
      t.done_seen = true;
      return true;
    }
    Chunk c;
    std::string why;
    if (!reader.Read(data, body_opt.dialect, served_model.empty(), &c, &why)) {
      t.fail = failure::kMalformed;
      t.fail_detail = std::move(why);
      return false;
    }
    if (c.error) {
      t.fail = failure::kHttpStatus;
      t.fail_detail = "error event in the stream: " + c.error_message;
      return false;
    }
    if (!c.model.empty()) served_model = c.model;
    if (c.finish) t.finish_seen = true;
    if (c.content) {
      int32_t k = 1;
      // With usage in every chunk, the tokens an event carried are the growth of completion_tokens.
      if (c.has_usage && t.have_usage) k = static_cast<int32_t>(std::max<int64_t>(1, c.completion_tokens - t.completion_tokens));
      else if (c.has_usage) k = static_cast<int32_t>(std::max<int64_t>(1, c.completion_tokens));
      t.rec.events.push_back({read_time, k});
    }
    if (c.has_usage) {
      t.have_usage = true;
      t.completion_tokens = c.completion_tokens;
      t.prompt_tokens = c.prompt_tokens;
    }
    return true;
  }

  void Release(Transfer& t) {
    curl_multi_remove_handle(multi, t.easy);
    curl_easy_reset(t.easy);
    spare_easies.push_back(t.easy);
    t.easy = nullptr;
    curl_slist_free_all(t.headers);
    t.headers = nullptr;
  }

  // Ends `t` (at read_time unless `end` given) and queues its record.
  void Finish(Transfer& t, CURLcode code, const char* forced = nullptr, Nanos end = -1) {
    RequestRecord& r = t.rec;
    r.end_ns = end >= 0 ? end : read_time;
    curl_off_t connect_us = 0;
    curl_easy_getinfo(t.easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    const bool connected = connect_us > 0 || t.status_checked;
    if (forced) {
      r.failure = forced;
    } else if (t.fail) {
      r.failure = t.fail;
      r.failure_detail = std::move(t.fail_detail);
    } else if (t.http_error) {
      r.failure = r.http_status == 429 ? failure::kRateLimited : failure::kHttpStatus;
      r.failure_detail = "HTTP " + std::to_string(r.http_status) + ": " + t.error_body;
    } else if (code != CURLE_OK) {
      r.failure = FailureForCurlCode(code, connected);
      r.failure_detail = t.errbuf[0] ? t.errbuf : curl_easy_strerror(code);
    } else if (t.sse.HasPartialEvent() || (!t.done_seen && !t.finish_seen)) {
      r.failure = failure::kClosedMidStream;
      r.failure_detail = "the response ended before [DONE]";
    } else if (r.events.empty()) {
      r.failure = failure::kNoTokens;
      r.failure_detail = "the stream finished without a token-bearing event";
    } else {
      r.ok = true;
    }
    if (!r.events.empty()) r.first_token_ns = r.events.front().t_ns;
    r.usage_reported = t.have_usage;
    if (t.have_usage) {
      r.output_tokens = static_cast<int32_t>(t.completion_tokens);
      r.prompt_tokens = static_cast<int32_t>(t.prompt_tokens);
    } else {
      int64_t sum = 0;
      for (const auto& e : r.events) sum += e.tokens;
      r.output_tokens = static_cast<int32_t>(sum);
    }
    Release(t);
    finished.push_back(std::move(r));
    // Swap-remove from the active list.
    const size_t i = t.index;
    if (i + 1 != active.size()) {
      active[i] = std::move(active.back());
      active[i]->index = i;
    }
    active.pop_back();
  }

  void DrainMessages() {
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      const CURLcode result = m->data.result;  // read before Finish removes the handle
      if (t) Finish(*t, result);
    }
  }

  void ScanDeadlines(Nanos now) {
    if (now < next_scan) return;
    next_scan = now + kDeadlineScan;
    if (opt.total_timeout <= 0 && opt.first_token_timeout <= 0) return;
    for (size_t i = 0; i < active.size();) {
      Transfer& t = *active[i];
      const Nanos age = now - t.rec.sent_ns;
      const char* why = nullptr;
      if (opt.first_token_timeout > 0 && t.rec.events.empty() && age > opt.first_token_timeout)
        why = failure::kFirstTokenTimeout;
      else if (opt.total_timeout > 0 && age > opt.total_timeout)
        why = failure::kTotalTimeout;
      if (why) {
        t.fail_detail.clear();
        Finish(t, CURLE_OK, why, now);  // swaps another transfer into slot i
      } else {
        ++i;
      }
    }
  }

  // One epoll_wait (up to timeout_ms) and the libcurl work it calls for.
  void ServiceOnce(int timeout_ms) {
    const int n = ::epoll_wait(epfd, ev_buf, kMaxEpollEvents, timeout_ms);
    read_time = SteadyClock::MonotonicNow();
    ++wakeups;
    int running = 0;
    for (int i = 0; i < n; ++i) {
      const int fd = ev_buf[i].data.fd;
      if (fd == timerfd) {
        uint64_t expirations;
        while (::read(timerfd, &expirations, sizeof(expirations)) > 0) {
        }
        timer_armed = -1;
        continue;
      }
      read_time = SteadyClock::MonotonicNow();  // for ends without new bytes
      const uint32_t ev = ev_buf[i].events;
      int flags = 0;
      if (ev & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
      if (ev & EPOLLOUT) flags |= CURL_CSELECT_OUT;
      if (ev & EPOLLERR) flags |= CURL_CSELECT_ERR;
      curl_multi_socket_action(multi, fd, flags, &running);
    }
    DrainMessages();
  }

  void ArmTimer(Nanos at) {
    if (at == timer_armed) return;
    itimerspec its{};
    its.it_value.tv_sec = at / kNanosPerSecond;
    its.it_value.tv_nsec = at % kNanosPerSecond;
    ::timerfd_settime(timerfd, TFD_TIMER_ABSTIME, &its, nullptr);
    timer_armed = at;
  }
};

Result<std::unique_ptr<StreamClient>> StreamClient::Create(const ClientOptions& o) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (o.base_url.rfind("http://", 0) != 0 && o.base_url.rfind("https://", 0) != 0)
    return InvalidArgument("--base-url must start with http:// or https://, got '" + o.base_url + "'");
  FRONTIER_ASSIGN_OR_RETURN(Dialect dialect, DialectForEndpoint(o.endpoint));
  FRONTIER_RETURN_IF_ERROR(ValidateExtraBody(o.extra_body));
  for (const auto& h : o.headers) {
    const size_t colon = h.find(':');
    if (colon == std::string::npos || colon == 0 || h.find_first_of("\r\n") != std::string::npos)
      return InvalidArgument("--header must look like 'Name: value', got '" + h + "'");
  }
  RaiseFileLimit();
  auto impl = std::make_unique<Impl>();
  impl->opt = o;
  impl->body_opt.dialect = dialect;
  impl->body_opt.model = o.model;
  impl->body_opt.usage = o.usage;
  impl->body_opt.ignore_eos = o.ignore_eos;
  impl->body_opt.extra_body = o.extra_body;
  std::string base = o.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  impl->url = base + o.endpoint;
  impl->static_headers = {"Content-Type: application/json", "Accept: text/event-stream",
                          "Expect:"};  // no 100-continue round trip
  if (!o.api_key.empty()) impl->static_headers.push_back("Authorization: Bearer " + o.api_key);
  for (const auto& h : o.headers) impl->static_headers.push_back(h);

  impl->epfd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->timerfd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  impl->multi = curl_multi_init();
  if (impl->epfd < 0 || impl->timerfd < 0 || !impl->multi)
    return Internal(std::string("cannot set up the HTTP client: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl->timerfd;
  ::epoll_ctl(impl->epfd, EPOLL_CTL_ADD, impl->timerfd, &ev);
  CURLM* m = impl->multi;
  curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &Impl::SocketCallback);
  curl_multi_setopt(m, CURLMOPT_SOCKETDATA, impl.get());
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &Impl::TimerCallback);
  curl_multi_setopt(m, CURLMOPT_TIMERDATA, impl.get());
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, 100000L);  // keep every idle connection for reuse
  curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
  curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  curl_multi_setopt(m, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  return std::unique_ptr<StreamClient>(new StreamClient(std::move(impl)));
}

StreamClient::StreamClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamClient::~StreamClient() = default;

void StreamClient::Start(const StreamRequest& req) {
  Impl& s = *impl_;
  auto t = std::make_unique<Transfer>();
  t->owner = &s;
  t->rec.id = req.id;
  t->rec.requested_output_tokens = req.max_tokens;
  auto body = BuildBody(s.body_opt, req.prompt_token_ids, req.prompt_text, req.max_tokens);
  if (!body.ok()) {
    t->rec.failure = failure::kOther;
    t->rec.failure_detail = body.status().message();
    t->rec.sent_ns = t->rec.end_ns = SteadyClock::MonotonicNow();
    s.finished.push_back(std::move(t->rec));
    return;
  }
  t->body = std::move(*body);
  CURL* e;
  if (!s.spare_easies.empty()) {
    e = s.spare_easies.back();
    s.spare_easies.pop_back();
  } else {
    e = curl_easy_init();
  }
  t->easy = e;
  for (const auto& h : s.static_headers) t->headers = curl_slist_append(t->headers, h.c_str());
  if (s.opt.send_request_id)
    t->headers = curl_slist_append(t->headers, ("X-Request-Id: frontier-" + std::to_string(req.id)).c_str());
  curl_easy_setopt(e, CURLOPT_URL, s.url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Impl::WriteCallback);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max<Nanos>(1, s.opt.connect_timeout / kNanosPerMilli)));
  if (s.opt.insecure) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  t->index = s.active.size();
  s.active.push_back(std::move(t));
  // Hand the request to the transport now: sent_ns is the moment libcurl
  // starts connecting (or reuses a connection) and writes the request, not
  // the next Poll (a burst of Starts would otherwise wait for the last one).
  s.active.back()->rec.sent_ns = SteadyClock::MonotonicNow();
  curl_multi_add_handle(s.multi, e);
  int running = 0;
  s.read_time = SteadyClock::MonotonicNow();
  curl_multi_socket_action(s.multi, CURL_SOCKET_TIMEOUT, 0, &running);
  s.DrainMessages();
  // Without waiting: write this request as soon as its connection is ready,
  // and keep other streams moving during a burst of Starts.
  s.ServiceOnce(0);
}

void StreamClient::Poll(Nanos deadline, const OnDone& done) {
  Impl& s = *impl_;
  auto deliver = [&] {
    if (s.finished.empty()) return false;
    std::vector<RequestRecord> out;
    out.swap(s.finished);
    for (auto& r : out) done(std::move(r));
    return true;
  };
  int running = 0;
  while (true) {
    Nanos now = SteadyClock::MonotonicNow();
    if (s.curl_timer >= 0 && s.curl_timer <= now) {
      s.read_time = now;
      s.curl_timer = -1;
      curl_multi_socket_action(s.multi, CURL_SOCKET_TIMEOUT, 0, &running);
      s.DrainMessages();
    }
    s.ScanDeadlines(now);
    if (deliver() || now >= deadline) return;
    Nanos wake = deadline;
    if (s.curl_timer >= 0) wake = std::min(wake, s.curl_timer);
    if (!s.active.empty() && (s.opt.total_timeout > 0 || s.opt.first_token_timeout > 0))
      wake = std::min(wake, s.next_scan);
    s.ArmTimer(std::max(wake, now + 1));
    s.ServiceOnce(1000);
  }
}

void StreamClient::AbortAll(const char* reason, const OnDone& done) {
  Impl& s = *impl_;
  const Nanos now = SteadyClock::MonotonicNow();
  while (!s.active.empty()) s.Finish(*s.active.back(), CURLE_OK, reason, now);
  std::vector<RequestRecord> out;
  out.swap(s.finished);
  for (auto& r : out) done(std::move(r));
}

size_t StreamClient::InFlight() const { return impl_->active.size() + impl_->finished.size(); }
const std::string& StreamClient::served_model() const { return impl_->served_model; }
int64_t StreamClient::wakeups() const { return impl_->wakeups; }
int64_t StreamClient::events() const { return impl_->events; }

}  // namespace frontier::client
