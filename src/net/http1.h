// http1.h: the HTTP/1.1 message framing every part of frontier speaks, in one
// place: the request head parser (`frontier serve`, the scripted test server),
// the incremental response parser with chunked decoding (the benchmark
// client, the serve probe), and chunked framing for writers.
//
//   net::ResponseParser p;
//   size_t used = p.Feed(bytes, [&](std::string_view body_piece) { ... });
//   if (p.state() == net::ResponseParser::kDone) ...  // p.head().status ...
//
// The response parser copies nothing on the body path: each body piece is a
// view into the bytes given to Feed (chunk framing removed). Only a head
// split across reads is buffered. Strict on framing (a bad chunk size, a
// missing CRLF, a Content-Length that overflows or conflicts are errors);
// tolerant of what servers commonly send (any reason phrase, header case,
// 1xx interim responses, trailers).
//
// Requests keep their query string and, when asked, their header lines (the
// dashboard reads Authorization and Cookie; the generation server needs none).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frontier::net {

// ---- Requests -------------------------------------------------------------------------------

struct HttpRequest {
  std::string method;
  std::string target;       // path, with any query string removed
  std::string query;        // what followed the first '?', undecoded ("" if none)
  int minor_version = 1;    // HTTP/1.<minor>
  bool keep_alive = true;
  bool expect_continue = false;
  int64_t content_length = 0;
  std::string body;
  // Header lines, names lower-cased, values trimmed (ParseRequestHead with keep_headers only).
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the first header named `lower_name`, or nullptr.
  const std::string* Header(std::string_view lower_name) const;
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
// touched). Bodies must be framed by Content-Length (chunked request bodies
// are refused with 411). A head longer than max_head_bytes is an error (431).
// Framing is strict where leniency lets two readers disagree (RFC 9112): a
// bare LF or CR, a NUL, obsolete line folding, whitespace before a header's
// colon, conflicting Content-Lengths, or Transfer-Encoding together with
// Content-Length are 400, each found as soon as its bytes are here.
// "Expect: 100-continue" sets expect_continue; keep-alive is HTTP/1.1's
// default, "Connection: close" or HTTP/1.0 without keep-alive clears it.
// keep_headers: also copy every header line into req.headers.
HeadResult ParseRequestHead(std::string_view buffer, size_t max_head_bytes, HttpRequest& req,
                            bool keep_headers = false);

// "OK", "Bad Request", ... for the status codes frontier's servers send.
const char* ReasonPhrase(int status);

// A whole response with a Content-Length body. `extra_headers` are complete
// lines each ending in "\r\n".
std::string FormatResponse(int status, std::string_view content_type, std::string_view body,
                           bool keep_alive, std::string_view extra_headers = {});

// ---- Responses ------------------------------------------------------------------------------

struct ResponseHead {
  int status = 0;
  int minor_version = 1;
  int64_t content_length = -1;  // -1: none given
  bool chunked = false;
  bool keep_alive = true;       // the connection may carry another request afterwards
  bool event_stream = false;    // Content-Type: text/event-stream
};

class ResponseParser {
 public:
  enum State { kHead, kBody, kDone, kError };

  // keep_headers: keep every header line (names lower-cased) for headers();
  // off on the client's hot path, which needs only ResponseHead.
  explicit ResponseParser(size_t max_head_bytes = 64 << 10, bool keep_headers = false)
      : max_head_(max_head_bytes), keep_headers_(keep_headers) {}

  // Ready for the next response on the same connection.
  void Reset();

  // Consumes bytes of the response; each piece of body goes to
  // on_body(std::string_view) as a view into `bytes`. Returns the bytes used:
  // all of them, unless the response ended (kDone: the rest belongs to the
  // next response) or the input is malformed (kError, error() says why).
  template <typename OnBody>
  size_t Feed(std::string_view bytes, OnBody&& on_body);

  // The peer closed the connection. A close-delimited body ends here (kDone);
  // returns true when the response was complete.
  bool OnEof();

  State state() const { return state_; }
  bool head_done() const { return state_ == kBody || state_ == kDone; }
  const ResponseHead& head() const { return head_; }
  const std::string& error() const { return error_; }
  // The final response's header lines (keep_headers only).
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  // Body bytes delivered so far (after chunk framing).
  int64_t body_bytes() const { return body_bytes_; }

 private:
  enum BodyMode { kLength, kChunkSize, kChunkExt, kChunkSizeLf, kChunkData, kChunkDataCr, kChunkDataLf,
                  kTrailerStart, kTrailerLine, kTrailerEndLf, kUntilClose };
  // Parses a complete head (without the blank line); false on error.
  bool ParseHead(std::string_view head);
  // Consumes head bytes; returns the count used.
  size_t FeedHead(std::string_view bytes);
  bool Fail(std::string why);

  size_t max_head_;
  bool keep_headers_;
  std::vector<std::pair<std::string, std::string>> headers_;
  State state_ = kHead;
  BodyMode mode_ = kLength;
  ResponseHead head_;
  std::string head_buf_;   // a head split across reads
  int64_t remaining_ = 0;  // of a Content-Length body or the current chunk
  int chunk_digits_ = 0;
  int64_t body_bytes_ = 0;
  std::string error_;
};

// ---- Writing --------------------------------------------------------------------------------

// Appends `payload` as one chunk of a chunked body (nothing for an empty
// payload: an empty chunk would end the body).
void AppendChunk(std::string& out, std::string_view payload);

// The terminating zero-length chunk.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// ---- Implementation -------------------------------------------------------------------------

template <typename OnBody>
size_t ResponseParser::Feed(std::string_view bytes, OnBody&& on_body) {
  size_t i = 0;
  if (state_ == kHead) {
    i = FeedHead(bytes);
    if (state_ != kBody) return i;
  }
  const size_t n = bytes.size();
  // Hands over what is left of a counted body (Content-Length or one chunk).
  auto take_counted = [&] {
    const size_t take = static_cast<size_t>(std::min<int64_t>(remaining_, static_cast<int64_t>(n - i)));
    on_body(bytes.substr(i, take));
    body_bytes_ += static_cast<int64_t>(take);
    i += take;
    remaining_ -= static_cast<int64_t>(take);
    return remaining_ == 0;
  };
  // Consumes the byte at i when it is `want` (a line end of the chunked
  // framing); else the body is malformed.
  auto expect = [&](char want, const char* error) {
    if (bytes[i] != want) {
      Fail(error);
      return false;
    }
    ++i;
    return true;
  };
  while (i < n && state_ == kBody) {
    const char c = bytes[i];
    switch (mode_) {
      case kLength:
        if (take_counted()) state_ = kDone;
        break;
      case kUntilClose:
        on_body(bytes.substr(i));
        body_bytes_ += static_cast<int64_t>(n - i);
        i = n;
        break;
      case kChunkSize: {
        int v = -1;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        if (v >= 0) {
          if (++chunk_digits_ > 15) { Fail("chunk size too large"); return i; }
          remaining_ = remaining_ * 16 + v;
          ++i;
        } else if (chunk_digits_ == 0) {
          { Fail("malformed chunk size"); return i; }
        } else if (c == '\r') {
          mode_ = kChunkSizeLf;
          ++i;
        } else if (c == ';' || c == ' ' || c == '\t') {
          mode_ = kChunkExt;
          ++i;
        } else {
          { Fail("malformed chunk size"); return i; }
        }
        break;
      }
      case kChunkExt:  // chunk extensions are ignored
        if (c == '\r') mode_ = kChunkSizeLf;
        else if (c == '\n') { Fail("malformed chunk extension"); return i; }
        ++i;
        break;
      case kChunkSizeLf:
        if (!expect('\n', "malformed chunk size line")) return i;
        mode_ = remaining_ == 0 ? kTrailerStart : kChunkData;
        break;
      case kChunkData:
        if (take_counted()) mode_ = kChunkDataCr;
        break;
      case kChunkDataCr:
        if (!expect('\r', "chunk data longer than its size")) return i;
        mode_ = kChunkDataLf;
        break;
      case kChunkDataLf:
        if (!expect('\n', "chunk data longer than its size")) return i;
        mode_ = kChunkSize;
        chunk_digits_ = 0;
        break;
      case kTrailerStart:
        ++i;
        mode_ = c == '\r' ? kTrailerEndLf : kTrailerLine;
        break;
      case kTrailerLine:
        ++i;
        if (c == '\n') mode_ = kTrailerStart;
        break;
      case kTrailerEndLf:
        if (!expect('\n', "malformed trailer")) return i;
        state_ = kDone;
        break;
    }
  }
  return i;
}

}  // namespace frontier::net
