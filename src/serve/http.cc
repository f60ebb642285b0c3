#include "serve/http.h"

#include <cctype>
#include <charconv>

namespace frontier::serve {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// True if the comma-separated header value contains `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (IEquals(Trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

HeadResult Error(int status, std::string message) {
  HeadResult r;
  r.state = ParseState::kError;
  r.error_status = status;
  r.error_message = std::move(message);
  return r;
}

}  // namespace

HeadResult ParseRequestHead(std::string_view buffer, size_t max_head_bytes, HttpRequest& req) {
  // Tolerate blank lines before a request (RFC 9112 section 2.2).
  size_t skip = 0;
  while (skip + 1 < buffer.size() && buffer[skip] == '\r' && buffer[skip + 1] == '\n') skip += 2;
  const size_t end = buffer.find("\r\n\r\n", skip);
  if (end == std::string_view::npos) {
    if (buffer.size() > max_head_bytes)
      return Error(431, "request head exceeds " + std::to_string(max_head_bytes) + " bytes");
    return {};
  }
  if (end + 4 > max_head_bytes)
    return Error(431, "request head exceeds " + std::to_string(max_head_bytes) + " bytes");
  std::string_view head = buffer.substr(skip, end - skip);

  const size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos)
    return Error(400, "malformed request line");
  req = HttpRequest{};
  req.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.1") {
    req.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    req.minor_version = 0;
  } else {
    return Error(505, "only HTTP/1.0 and HTTP/1.1 are supported");
  }
  if (target.empty() || target.front() != '/') return Error(400, "request target must be a path");
  req.target = std::string(target.substr(0, target.find('?')));
  req.keep_alive = req.minor_version == 1;

  bool have_length = false;
  bool chunked = false;
  std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
  while (!rest.empty()) {
    const size_t eol = rest.find("\r\n");
    std::string_view h = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 2);
    const size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return Error(400, "malformed header line");
    std::string_view name = h.substr(0, colon);
    std::string_view value = Trim(h.substr(colon + 1));
    if (IEquals(name, "content-length")) {
      int64_t n = -1;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || p != value.data() + value.size() || n < 0)
        return Error(400, "Content-Length must be a non-negative integer");
      if (have_length && n != req.content_length) return Error(400, "conflicting Content-Length headers");
      have_length = true;
      req.content_length = n;
    } else if (IEquals(name, "transfer-encoding")) {
      chunked = true;
    } else if (IEquals(name, "connection")) {
      if (HasToken(value, "close")) req.keep_alive = false;
      if (HasToken(value, "keep-alive")) req.keep_alive = true;
    } else if (IEquals(name, "expect")) {
      if (IEquals(value, "100-continue")) req.expect_continue = true;
    }
  }
  if (chunked) return Error(411, "send the body with a Content-Length; chunked request bodies are not supported");
  if (req.method == "POST" && !have_length)
    return Error(411, "a POST needs a Content-Length header");
  HeadResult r;
  r.state = ParseState::kHeadDone;
  r.head_bytes = end + 4;
  return r;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string FormatResponse(int status, std::string_view content_type, std::string_view body,
                           bool keep_alive, std::string_view extra_headers) {
  std::string out;
  out.reserve(160 + body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += ReasonPhrase(status);
  out += "\r\ncontent-type: ";
  out += content_type;
  out += "\r\ncontent-length: ";
  out += std::to_string(body.size());
  out += keep_alive ? "\r\n" : "\r\nconnection: close\r\n";
  out += extra_headers;
  out += "\r\n";
  out += body;
  return out;
}

std::string FormatStreamHead(bool chunked, std::string_view extra_headers) {
  std::string out =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
      "cache-control: no-cache\r\n";
  out += chunked ? "transfer-encoding: chunked\r\n" : "connection: close\r\n";
  out += extra_headers;
  out += "\r\n";
  return out;
}

void AppendBodyPart(std::string& out, std::string_view payload, bool chunked) {
  if (payload.empty()) return;  // an empty chunk would end the body
  if (chunked) {
    char hex[20];
    auto [p, ec] = std::to_chars(hex, hex + sizeof(hex), payload.size(), 16);
    (void)ec;
    out.append(hex, p);
    out += "\r\n";
    out += payload;
    out += "\r\n";
  } else {
    out += payload;
  }
}

}  // namespace frontier::serve
