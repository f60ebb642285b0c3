#include "net/http1.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/ascii.h"

namespace frontier::net {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// True if the comma-separated header value contains `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (AsciiEqualsIgnoreCase(Trim(value.substr(0, comma)), token)) return true;
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

const std::string* HttpRequest::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return &value;
  return nullptr;
}

HeadResult ParseRequestHead(std::string_view buffer, size_t max_head_bytes, HttpRequest& req,
                            bool keep_headers) {
  // Tolerate blank lines before a request (RFC 9112 section 2.2).
  size_t skip = 0;
  while (skip + 1 < buffer.size() && buffer[skip] == '\r' && buffer[skip + 1] == '\n') skip += 2;
  const size_t end = buffer.find("\r\n\r\n", skip);
  if (end != std::string_view::npos && end + 4 > max_head_bytes)
    return Error(431, "request head exceeds " + std::to_string(max_head_bytes) + " bytes");
  // Lines end in CRLF. A bare LF or CR is refused rather than read as a line
  // end (RFC 9112 section 2.2 allows either): a proxy in front that reads it
  // otherwise would see different requests than we do. Checked before the
  // head is complete, so a client that ends lines in LF gets its answer at
  // once instead of waiting out the header timeout.
  const std::string_view scan = buffer.substr(skip, end == std::string_view::npos ? max_head_bytes + 4 : end + 4 - skip);
  for (size_t i = 0; i < scan.size(); ++i) {
    if (scan[i] == '\n' && (i == 0 || scan[i - 1] != '\r'))
      return Error(400, "a bare LF in the request head; end every line with CRLF");
    if (scan[i] == '\r' && i + 1 < scan.size() && scan[i + 1] != '\n')
      return Error(400, "a bare CR in the request head; end every line with CRLF");
    if (scan[i] == '\0') return Error(400, "a NUL byte in the request head");
  }
  if (end == std::string_view::npos) {
    if (buffer.size() > max_head_bytes)
      return Error(431, "request head exceeds " + std::to_string(max_head_bytes) + " bytes");
    return {};
  }
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
  const size_t question = target.find('?');
  req.target = std::string(target.substr(0, question));
  if (question != std::string_view::npos) req.query = std::string(target.substr(question + 1));
  req.keep_alive = req.minor_version == 1;

  bool have_length = false;
  bool chunked = false;
  std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
  while (!rest.empty()) {
    const size_t eol = rest.find("\r\n");
    std::string_view h = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 2);
    if (!h.empty() && (h.front() == ' ' || h.front() == '\t'))
      return Error(400, "obsolete line folding in the request head; put each header on one line");
    const size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return Error(400, "malformed header line");
    std::string_view name = h.substr(0, colon);
    if (name.find_first_of(" \t") != std::string_view::npos)
      return Error(400, "whitespace in the header name '" + std::string(Trim(name)) + "'");
    std::string_view value = Trim(h.substr(colon + 1));
    if (keep_headers) {
      req.headers.emplace_back(AsciiLower(name), std::string(value));
    }
    if (AsciiEqualsIgnoreCase(name, "content-length")) {
      int64_t n = -1;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || p != value.data() + value.size() || n < 0)
        return Error(400, "Content-Length must be a non-negative integer");
      if (have_length && n != req.content_length) return Error(400, "conflicting Content-Length headers");
      have_length = true;
      req.content_length = n;
    } else if (AsciiEqualsIgnoreCase(name, "transfer-encoding")) {
      chunked = true;
    } else if (AsciiEqualsIgnoreCase(name, "connection")) {
      if (HasToken(value, "close")) req.keep_alive = false;
      if (HasToken(value, "keep-alive")) req.keep_alive = true;
    } else if (AsciiEqualsIgnoreCase(name, "expect")) {
      if (AsciiEqualsIgnoreCase(value, "100-continue")) req.expect_continue = true;
    }
  }
  if (chunked && have_length)
    return Error(400, "both Transfer-Encoding and Content-Length: the body's length is ambiguous");
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
    case 204: return "No Content";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
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

// ---- Responses ------------------------------------------------------------------------------

void ResponseParser::Reset() {
  state_ = kHead;
  mode_ = kLength;
  head_ = ResponseHead{};
  head_buf_.clear();
  headers_.clear();
  remaining_ = 0;
  chunk_digits_ = 0;
  body_bytes_ = 0;
  error_.clear();
}

bool ResponseParser::Fail(std::string why) {
  state_ = kError;
  error_ = std::move(why);
  return false;
}

bool ResponseParser::OnEof() {
  if (state_ == kBody && mode_ == kUntilClose) state_ = kDone;
  return state_ == kDone;
}

size_t ResponseParser::FeedHead(std::string_view bytes) {
  // Common case: the whole head in this read, nothing buffered.
  size_t used = 0;
  while (state_ == kHead && used < bytes.size()) {
    std::string_view rest = bytes.substr(used);
    size_t end;
    if (head_buf_.empty()) {
      end = rest.find("\r\n\r\n");
      if (end == std::string_view::npos) {
        if (rest.size() > max_head_) {
          Fail("response head exceeds " + std::to_string(max_head_) + " bytes");
          return used;
        }
        head_buf_.assign(rest);
        return bytes.size();
      }
      if (end + 4 > max_head_) {
        Fail("response head exceeds " + std::to_string(max_head_) + " bytes");
        return used;
      }
      const bool ok = ParseHead(rest.substr(0, end));
      used += end + 4;
      if (!ok) return used;
    } else {
      // Look for the blank line across the buffered part and the new bytes.
      const size_t old = head_buf_.size();
      const size_t from = old >= 3 ? old - 3 : 0;
      head_buf_.append(rest.substr(0, std::min(rest.size(), max_head_ + 4 - std::min(old, max_head_))));
      end = head_buf_.find("\r\n\r\n", from);
      if (end == std::string::npos) {
        if (head_buf_.size() > max_head_) {
          Fail("response head exceeds " + std::to_string(max_head_) + " bytes");
          return used;
        }
        return bytes.size();
      }
      if (end + 4 > max_head_) {
        Fail("response head exceeds " + std::to_string(max_head_) + " bytes");
        return used;
      }
      const size_t from_rest = end + 4 - old;  // bytes of `rest` that belong to the head
      std::string head = std::move(head_buf_);
      head_buf_.clear();
      head.resize(end);
      const bool ok = ParseHead(head);
      used += from_rest;
      if (!ok) return used;
    }
  }
  return used;
}

bool ResponseParser::ParseHead(std::string_view head) {
  const size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  // "HTTP/1.x SSS[ reason]"
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || (line.size() > 12 && line[12] != ' '))
    return Fail("malformed status line: '" + std::string(line.substr(0, 80)) + "'");
  int status = 0;
  for (size_t k = 9; k < 12; ++k) {
    if (line[k] < '0' || line[k] > '9') return Fail("malformed status code: '" + std::string(line.substr(0, 80)) + "'");
    status = status * 10 + (line[k] - '0');
  }
  if (status < 100) return Fail("status code below 100: '" + std::string(line.substr(0, 80)) + "'");
  if (status >= 100 && status < 200) {
    // An interim response (100 Continue, 103 Early Hints): the real one follows.
    return true;
  }
  ResponseHead h;
  h.status = status;
  h.minor_version = line[7] - '0';
  h.keep_alive = h.minor_version == 1;
  bool have_length = false;
  headers_.clear();
  std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
  while (!rest.empty()) {
    const size_t eol = rest.find("\r\n");
    const std::string_view hl = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 2);
    const size_t colon = hl.find(':');
    if (colon == std::string_view::npos || colon == 0) return Fail("malformed header line: '" + std::string(hl.substr(0, 80)) + "'");
    const std::string_view name = hl.substr(0, colon);
    const std::string_view value = Trim(hl.substr(colon + 1));
    if (keep_headers_) {
      headers_.emplace_back(AsciiLower(name), std::string(value));
    }
    if (AsciiEqualsIgnoreCase(name, "content-length")) {
      int64_t v = -1;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size() || v < 0)
        return Fail("Content-Length must be a non-negative integer, got '" + std::string(value.substr(0, 40)) + "'");
      if (have_length && v != h.content_length) return Fail("conflicting Content-Length headers");
      have_length = true;
      h.content_length = v;
    } else if (AsciiEqualsIgnoreCase(name, "transfer-encoding")) {
      // Chunked when it is the last coding; any other coding runs to the close.
      const size_t comma = value.rfind(',');
      h.chunked = AsciiEqualsIgnoreCase(Trim(comma == std::string_view::npos ? value : value.substr(comma + 1)), "chunked");
      if (!h.chunked) h.keep_alive = false;
    } else if (AsciiEqualsIgnoreCase(name, "connection")) {
      if (HasToken(value, "close")) h.keep_alive = false;
      else if (HasToken(value, "keep-alive")) h.keep_alive = true;
    } else if (AsciiEqualsIgnoreCase(name, "content-type")) {
      h.event_stream = value.size() >= 17 && AsciiEqualsIgnoreCase(value.substr(0, 17), "text/event-stream");
    }
  }
  head_ = h;
  state_ = kBody;
  if (status == 204 || status == 304) {
    state_ = kDone;
  } else if (h.chunked) {
    mode_ = kChunkSize;
    remaining_ = 0;
    chunk_digits_ = 0;
  } else if (have_length) {
    mode_ = kLength;
    remaining_ = h.content_length;
    if (remaining_ == 0) state_ = kDone;
  } else {
    mode_ = kUntilClose;
    head_.keep_alive = false;
  }
  return true;
}

// ---- Writing --------------------------------------------------------------------------------

void AppendChunk(std::string& out, std::string_view payload) {
  if (payload.empty()) return;
  char hex[20];
  auto [p, ec] = std::to_chars(hex, hex + sizeof(hex), payload.size(), 16);
  (void)ec;
  out.append(hex, p);
  out += "\r\n";
  out += payload;
  out += "\r\n";
}

}  // namespace frontier::net
