// http.h: the small part of HTTP/1.1 that `frontier serve` speaks.
//
// Requests: a request line, headers, and a body framed by Content-Length
// (chunked request bodies are refused with 411, as many API servers do).
// "Expect: 100-continue" is honoured. Keep-alive is the HTTP/1.1 default;
// "Connection: close" or HTTP/1.0 without keep-alive closes after the response.
// Responses: Content-Length bodies, or for streams chunked transfer encoding
// (HTTP/1.1) / a close-delimited body (HTTP/1.0).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::serve {

struct HttpRequest {
  std::string method;
  std::string target;       // path, with any query string removed
  int minor_version = 1;    // HTTP/1.<minor>
  bool keep_alive = true;
  bool expect_continue = false;
  int64_t content_length = 0;
  std::string body;
};

enum class ParseState {
  kNeedMore,   // not a whole head yet
  kHeadDone,   // head parsed; content_length bytes of body follow it
  kError,      // malformed; error_status and error_message say how to answer
};

struct HeadResult {
  ParseState state = ParseState::kNeedMore;
  size_t head_bytes = 0;    // bytes of `buffer` the head used (kHeadDone)
  int error_status = 400;
  std::string error_message;
};

// Parses the request head at the start of `buffer` into `req` (body not
// touched). A head longer than max_head_bytes is an error (431).
HeadResult ParseRequestHead(std::string_view buffer, size_t max_head_bytes, HttpRequest& req);

// "OK", "Bad Request", ... for the codes this server sends.
const char* ReasonPhrase(int status);

// A whole response with a Content-Length body. `extra_headers` are complete
// lines each ending in "\r\n".
std::string FormatResponse(int status, std::string_view content_type, std::string_view body,
                           bool keep_alive, std::string_view extra_headers = {});

// The head of a streamed (SSE) response: chunked for HTTP/1.1, else close-delimited.
std::string FormatStreamHead(bool chunked, std::string_view extra_headers = {});

// Appends `payload` to `out` as one chunk (chunked) or raw (close-delimited).
void AppendBodyPart(std::string& out, std::string_view payload, bool chunked);

// The terminating zero-length chunk.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace frontier::serve
