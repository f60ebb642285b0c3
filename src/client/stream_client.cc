#include "client/stream_client.h"

#include <sys/resource.h>

#include <charconv>

#include "client/backend.h"
#include "client/transport.h"

namespace frontier::client {
namespace {

void RaiseFileLimit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

struct Url {
  bool https = false;
  std::string host;  // as written (IPv6 in brackets)
  int port = 0;
  std::string prefix;  // path before the endpoint, without a trailing '/'
};

Result<Url> ParseBaseUrl(const std::string& s) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("--base-url " + why + ", got '" + s + "' (e.g. http://127.0.0.1:8000)");
  };
  Url u;
  std::string_view rest = s;
  if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
  } else if (rest.rfind("https://", 0) == 0) {
    rest.remove_prefix(8);
    u.https = true;
  } else {
    return bad("must start with http:// or https://");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) return bad("must not carry credentials (use --api-key)");
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("has an unclosed '[' in its host");
    u.host = std::string(authority.substr(0, close + 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return bad("has something after the IPv6 address");
      port_text = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (u.host.empty() || u.host == "[]") return bad("has no host");
  u.port = u.https ? 443 : 80;
  if (!port_text.empty()) {
    int p = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), p);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || p < 1 || p > 65535)
      return bad("has a port outside [1, 65535]");
    u.port = p;
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of(" \r\n?#") != std::string_view::npos) return bad("has a path with spaces, '?' or '#'");
  u.prefix = std::string(path);
  return u;
}

}  // namespace

namespace internal {

std::vector<std::string> RequestHeaders(const ClientOptions& o) {
  std::vector<std::string> h = {"Content-Type: application/json", "Accept: text/event-stream"};
  if (!o.api_key.empty()) h.push_back("Authorization: Bearer " + o.api_key);
  for (const auto& line : o.headers) h.push_back(line);
  return h;
}

}  // namespace internal

struct StreamClient::Impl {
  BodyOptions body_opt;
  std::unique_ptr<internal::Transport> transport;
  std::vector<RequestRecord> unbuilt;  // requests whose body could not be built
};

Result<std::unique_ptr<StreamClient>> StreamClient::Create(const ClientOptions& o, const Clock& clock) {
  FRONTIER_ASSIGN_OR_RETURN(Url url, ParseBaseUrl(o.base_url));
  Dialect dialect = Dialect::kCompletions;
  if (o.backend.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(dialect, DialectForEndpoint(o.endpoint));
  } else {
    FRONTIER_ASSIGN_OR_RETURN(dialect, ResolveDialect(o.backend, o.endpoint));
  }
  FRONTIER_RETURN_IF_ERROR(ValidateExtraBody(o.extra_body));
  for (const auto& h : o.headers) {
    const size_t colon = h.find(':');
    if (colon == std::string::npos || colon == 0 || h.find_first_of("\r\n") != std::string::npos)
      return InvalidArgument("--header must look like 'Name: value', got '" + h + "'");
  }
  if (o.api_key.find_first_of("\r\n") != std::string::npos)
    return InvalidArgument("--api-key must not contain a line break");
  RaiseFileLimit();
  auto impl = std::make_unique<Impl>();
  impl->body_opt.dialect = dialect;
  impl->body_opt.model = o.model;
  impl->body_opt.usage = o.usage;
  impl->body_opt.ignore_eos = o.ignore_eos;
  impl->body_opt.extra_body = o.extra_body;
  const std::string path = url.prefix + o.endpoint;
  if (url.https) {
    const std::string scheme_host = "https://" + url.host + ":" + std::to_string(url.port);
    FRONTIER_ASSIGN_OR_RETURN(impl->transport, internal::NewCurlTransport(o, scheme_host + path, clock));
  } else {
    FRONTIER_ASSIGN_OR_RETURN(impl->transport, internal::NewHttp1Transport(o, url.host, url.port, path, clock));
  }
  impl->transport->context().dialect = dialect;
  impl->transport->context().max_error_body = o.max_error_body;
  return std::unique_ptr<StreamClient>(new StreamClient(std::move(impl)));
}

StreamClient::StreamClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamClient::~StreamClient() = default;

void StreamClient::Start(const StreamRequest& req) {
  Impl& s = *impl_;
  auto body = BuildBody(s.body_opt, req.prompt_token_ids, req.prompt_text, req.max_tokens);
  // Handed to the transport now: sent_ns is the moment it connects (or takes
  // a kept-alive connection) and writes the request, not the next Poll.
  const Nanos sent = s.transport->clock().Now();
  if (!body.ok()) {
    RequestRecord r;
    r.id = req.id;
    r.requested_output_tokens = req.max_tokens;
    r.failure = failure::kOther;
    r.failure_detail = body.status().message();
    r.sent_ns = r.end_ns = sent;
    s.unbuilt.push_back(std::move(r));
    return;
  }
  StreamSpec spec;
  spec.id = req.id;
  spec.max_tokens = req.max_tokens;
  spec.cancel_after_tokens = req.cancel_after_tokens;
  spec.keep_text = req.keep_text;
  spec.body_end_finishes = s.body_opt.dialect == Dialect::kTrtllm;
  s.transport->Start(spec, std::move(*body), sent);
}

void StreamClient::Poll(Nanos deadline, const OnDone& done) {
  Impl& s = *impl_;
  if (!s.unbuilt.empty()) {
    std::vector<RequestRecord> out;
    out.swap(s.unbuilt);
    for (auto& r : out) done(std::move(r));
    deadline = s.transport->clock().Now();  // handle ready I/O, do not wait
  }
  s.transport->Poll(deadline, done);
}

void StreamClient::AbortAll(const char* reason, const OnDone& done) {
  Impl& s = *impl_;
  std::vector<RequestRecord> out;
  out.swap(s.unbuilt);
  for (auto& r : out) done(std::move(r));
  s.transport->AbortAll(reason, done);
}

bool StreamClient::Cancel(int64_t id, const OnDone& done) {
  Impl& s = *impl_;
  for (size_t i = 0; i < s.unbuilt.size(); ++i) {
    if (s.unbuilt[i].id != id) continue;
    RequestRecord r = std::move(s.unbuilt[i]);
    s.unbuilt.erase(s.unbuilt.begin() + static_cast<std::ptrdiff_t>(i));
    done(std::move(r));  // it never left: it ends as it failed, not cancelled
    return true;
  }
  return s.transport->Cancel(id, done);
}

std::string StreamClient::TakeText(int64_t id) {
  auto& texts = impl_->transport->context().texts;
  auto it = texts.find(id);
  if (it == texts.end()) return "";
  std::string text = std::move(it->second);
  texts.erase(it);
  return text;
}

void StreamClient::Wake() { impl_->transport->Wake(); }
size_t StreamClient::InFlight() const { return impl_->transport->InFlight() + impl_->unbuilt.size(); }
const std::string& StreamClient::served_model() const { return impl_->transport->context().served_model; }
int64_t StreamClient::wakeups() const { return impl_->transport->wakeups(); }
int64_t StreamClient::events() const { return impl_->transport->context().events; }

}  // namespace frontier::client
