// libcurl's multi-socket interface driven by the client's epoll loop: the
// transport for https:// (see transport.h). libcurl brings TLS (certificates,
// handshakes, their precise error codes), which the HTTP/1.1 transport does
// not; the loop owns the sockets and the timestamps.
#include <curl/curl.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "client/transport.h"
#include "net/poller.h"

namespace frontier::client {

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

namespace internal {
namespace {

constexpr Nanos kDeadlineScan = 2 * kNanosPerMilli;

class CurlTransport;

struct CurlTransfer {
  CurlTransport* owner = nullptr;
  CURL* easy = nullptr;
  size_t index = 0;  // position in the active list
  ResponseStream rs;
  std::string body;
  curl_slist* headers = nullptr;
  char errbuf[CURL_ERROR_SIZE] = {};
  bool stopped = false;
  std::string scratch;  // body bytes copied with padding (libcurl's buffer has none)
};

class CurlTransport final : public Transport {
 public:
  CurlTransport(const ClientOptions& o, std::string url, const Clock& clock)
      : Transport(clock), opt_(o), url_(std::move(url)), headers_(RequestHeaders(o)) {
    headers_.push_back("Expect:");  // no 100-continue round trip
  }
  ~CurlTransport() override {
    for (auto& t : active_) Release(*t);
    for (CURL* e : spare_) curl_easy_cleanup(e);
    if (multi_) curl_multi_cleanup(multi_);
  }

  bool Init() {
    multi_ = curl_multi_init();
    if (!multi_ || !poller_.ok() || waker_.fd() < 0) return false;
    poller_.Add(waker_.fd(), EPOLLIN, &waker_);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlTransport::SocketCallback);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlTransport::TimerCallback);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, 100000L);  // keep every idle connection for reuse
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
    return true;
  }

  void Start(const StreamSpec& spec, std::string body, Nanos sent) override {
    const int64_t id = spec.id;
    auto t = std::make_unique<CurlTransfer>();
    t->owner = this;
    t->rs.Begin(spec, sent);
    t->body = std::move(body);
    CURL* e;
    if (!spare_.empty()) {
      e = spare_.back();
      spare_.pop_back();
    } else {
      e = curl_easy_init();
    }
    t->easy = e;
    for (const auto& h : headers_) t->headers = curl_slist_append(t->headers, h.c_str());
    if (opt_.send_request_id)
      t->headers = curl_slist_append(t->headers, ("X-Request-Id: frontier-" + std::to_string(id)).c_str());
    curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &CurlTransport::WriteCallback);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::max<Nanos>(1, opt_.connect_timeout / kNanosPerMilli)));
    if (opt_.insecure) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    t->index = active_.size();
    active_.push_back(std::move(t));
    curl_multi_add_handle(multi_, e);
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    DrainMessages();
    const Nanos now = clock_.Now();
    ServiceOnce(now, now);  // write it as soon as its connection is ready
  }

  void Poll(Nanos deadline, const OnDone& done) override {
    int running = 0;
    woken_ = false;
    while (!woken_) {
      const Nanos now = clock_.Now();
      if (curl_timer_ >= 0 && curl_timer_ <= now) {
        curl_timer_ = -1;
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        DrainMessages();
      }
      ScanDeadlines(now);
      if (!finished_.empty() || now >= deadline) break;
      Nanos wake = deadline;
      if (curl_timer_ >= 0) wake = std::min(wake, curl_timer_);
      if (!active_.empty()) wake = std::min(wake, next_scan_);
      ServiceOnce(std::max(wake, now), now);
    }
    std::vector<RequestRecord> out;
    out.swap(finished_);
    for (auto& r : out) done(std::move(r));
  }

  void AbortAll(const char* reason, const OnDone& done) override {
    const Nanos now = clock_.Now();
    while (!active_.empty()) Finish(*active_.back(), CURLE_OK, reason, now);
    std::vector<RequestRecord> out;
    out.swap(finished_);
    for (auto& r : out) done(std::move(r));
  }

  bool Cancel(int64_t id, const OnDone& done) override {
    for (auto& t : active_) {
      if (t->rs.record().id != id) continue;
      Finish(*t, CURLE_OK, failure::kCancelled, clock_.Now());  // removes the handle: closes it
      std::vector<RequestRecord> out;
      out.swap(finished_);
      for (auto& r : out) done(std::move(r));
      return true;
    }
    return false;
  }

  size_t InFlight() const override { return active_.size() + finished_.size(); }

 private:
  static int SocketCallback(CURL*, curl_socket_t s, int what, void* userp, void* socketp) {
    auto* self = static_cast<CurlTransport*>(userp);
    void* tag = reinterpret_cast<void*>(static_cast<intptr_t>(s));
    if (what == CURL_POLL_REMOVE) {
      self->poller_.Remove(s);
      curl_multi_assign(self->multi_, s, nullptr);
      return 0;
    }
    const uint32_t ev = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    if (socketp) {
      if (!self->poller_.Modify(s, ev, tag) && errno == ENOENT) self->poller_.Add(s, ev, tag);
    } else {
      if (!self->poller_.Add(s, ev, tag) && errno == EEXIST) self->poller_.Modify(s, ev, tag);
      curl_multi_assign(self->multi_, s, self);  // any non-null marker
    }
    return 0;
  }

  static int TimerCallback(CURLM*, long timeout_ms, void* userp) {
    auto* self = static_cast<CurlTransport*>(userp);
    self->curl_timer_ =
        timeout_ms < 0 ? -1 : self->clock_.Now() + static_cast<Nanos>(timeout_ms) * kNanosPerMilli;
    return 0;
  }

  static size_t WriteCallback(char* p, size_t size, size_t n, void* userp) {
    auto* t = static_cast<CurlTransfer*>(userp);
    // The read's timestamp: libcurl calls here right after recv() returned
    // these bytes, before any parsing (stamped before the read, a preempted
    // thread would stamp bytes before the server wrote them).
    const Nanos at = t->owner->clock_.Now();
    return t->owner->OnBytes(*t, std::string_view(p, size * n), at);
  }

  size_t OnBytes(CurlTransfer& t, std::string_view bytes, Nanos at) {
    if (!t.rs.status_seen()) {
      long code = 0;
      curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
      t.rs.OnStatus(static_cast<int>(code));
    }
    // libcurl's buffer has no padding past the bytes: copy (https only).
    t.scratch.assign(bytes);
    t.scratch.reserve(bytes.size() + kSsePadding);
    if (!t.rs.OnBody(std::string_view(t.scratch.data(), bytes.size()), at, ctx_)) {
      t.stopped = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    return bytes.size();
  }

  void Release(CurlTransfer& t) {
    curl_multi_remove_handle(multi_, t.easy);
    curl_easy_reset(t.easy);
    spare_.push_back(t.easy);
    t.easy = nullptr;
    curl_slist_free_all(t.headers);
    t.headers = nullptr;
  }

  void Finish(CurlTransfer& t, CURLcode code, const char* forced, Nanos end) {
    curl_off_t connect_us = 0;
    curl_easy_getinfo(t.easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    const bool connected = connect_us > 0 || t.rs.status_seen();
    const char* transport = nullptr;
    std::string detail;
    if (!t.stopped && code != CURLE_OK) {
      transport = FailureForCurlCode(code, connected);
      detail = t.errbuf[0] ? t.errbuf : curl_easy_strerror(code);
    }
    finished_.push_back(t.rs.Finish(end, forced, transport, std::move(detail)));
    if (t.rs.keeps_text()) ctx_.texts[finished_.back().id] = t.rs.TakeText();
    Release(t);
    const size_t i = t.index;
    if (i + 1 != active_.size()) {
      active_[i] = std::move(active_.back());
      active_[i]->index = i;
    }
    active_.pop_back();
  }

  void DrainMessages() {
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      CurlTransfer* t = nullptr;
      curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      const CURLcode result = m->data.result;  // read before Finish removes the handle
      if (t) Finish(*t, result, nullptr, clock_.Now());
    }
  }

  void ScanDeadlines(Nanos now) {
    if (now < next_scan_) return;
    next_scan_ = now + kDeadlineScan;
    for (size_t i = 0; i < active_.size();) {
      CurlTransfer& t = *active_[i];
      const Nanos age = now - t.rs.record().sent_ns;
      const char* why = nullptr;
      if (opt_.first_token_timeout > 0 && !t.rs.has_events() && age > opt_.first_token_timeout)
        why = failure::kFirstTokenTimeout;
      else if (opt_.total_timeout > 0 && age > opt_.total_timeout)
        why = failure::kTotalTimeout;
      if (why) {
        Finish(t, CURLE_OK, why, now);  // swaps another transfer into slot i
      } else {
        ++i;
      }
    }
  }

  // One wait (until `until` on the clock, read at `now`) and the libcurl work it calls for.
  void ServiceOnce(Nanos until, Nanos now) {
    const int n = poller_.Wait(RealDeadline(until, now));
    ++wakeups_;
    int running = 0;
    for (int i = 0; i < n; ++i) {
      const epoll_event& e = poller_.event(i);
      if (e.data.ptr == &waker_) {
        waker_.Drain();
        woken_ = true;
        continue;
      }
      const int fd = static_cast<int>(reinterpret_cast<intptr_t>(e.data.ptr));
      int flags = 0;
      if (e.events & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
      if (e.events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
      if (e.events & EPOLLERR) flags |= CURL_CSELECT_ERR;
      curl_multi_socket_action(multi_, fd, flags, &running);
    }
    DrainMessages();
  }

  const ClientOptions opt_;
  const std::string url_;
  std::vector<std::string> headers_;
  CURLM* multi_ = nullptr;
  net::Poller poller_{4096};
  Nanos curl_timer_ = -1;  // when libcurl wants socket_action(TIMEOUT), on the clock; -1 none
  Nanos next_scan_ = 0;
  bool woken_ = false;
  std::vector<std::unique_ptr<CurlTransfer>> active_;
  std::vector<CURL*> spare_;
  std::vector<RequestRecord> finished_;
};

}  // namespace

Result<std::unique_ptr<Transport>> NewCurlTransport(const ClientOptions& o, const std::string& url,
                                                   const Clock& clock) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  auto t = std::make_unique<CurlTransport>(o, url, clock);
  if (!t->Init()) return Internal(std::string("cannot set up the HTTPS client: ") + std::strerror(errno));
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace internal
}  // namespace frontier::client
