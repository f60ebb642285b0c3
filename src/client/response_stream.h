// response_stream.h: what one streamed response has told the client so far,
// and how it ends: the part of a request's life every transport shares (the
// HTTP/1.1 event-loop transport and libcurl's, stream_client.cc).
//
// A transport reports the status line (OnStatus), hands over body bytes as
// they are read, each read with its one timestamp (OnBody), and finally ends
// the request (Finish) saying how the transport saw the end. ResponseStream
// frames SSE (sse.h), reads each chunk (openai.h), stamps token-bearing
// events with the read's time, keeps usage, and classifies the outcome into
// one failure:: code (core/run_result.h), in this order:
//   a forced end (timeout, interrupt); a malformed stream or an error event
//   (the server's own words); an HTTP status >= 300 (429 -> http_429) with
//   its body, whether or not the body was complete; a transport failure
//   before any response (connect, dns, tls, ...); a response cut before
//   [DONE] or a finish reason (closed_mid_stream, status kept); no token
//   (zero_tokens); else ok.
//
// Usage that contradicts the events received (completion_tokens that fall,
// or that do not grow on a content event while usage is in every chunk, or
// a total below the number of content events) is not trusted: the tokens are
// counted from the events, usage_reported is false, and the record's
// usage_conflict says what was seen.
//
// Thread safety: one per request, used from its transport's thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "client/openai.h"
#include "client/sse.h"
#include "core/clock.h"
#include "core/run_result.h"

namespace frontier::client {

// State shared by the streams of one event loop.
struct StreamContext {
  Dialect dialect = Dialect::kCompletions;
  size_t max_error_body = 4096;
  ChunkReader reader;
  std::string served_model;  // the "model" the server named, "" until one did
  int64_t events = 0;        // SSE events handled (capacity bench)
};

class ResponseStream {
 public:
  // Starts a request: id, requested tokens, and when it was handed over.
  void Begin(int64_t id, int32_t max_tokens, Nanos sent_ns);

  // The response's status line arrived.
  void OnStatus(int status);
  bool status_seen() const { return rec_.http_status != 0; }

  // Body bytes (de-chunked) of one read at time `t`. REQUIRES: kSsePadding
  // readable bytes follow `bytes`. Returns false when the stream must stop
  // (malformed, or an error event): Finish then reports why.
  bool OnBody(std::string_view bytes, Nanos t, StreamContext& ctx);

  // Ends the request at `end`. `forced`: a failure:: code imposed from
  // outside (timeouts, interrupt), else nullptr. `transport`: a failure::
  // code for a transport-level end (connect, dns, tls, closed_mid_stream,
  // malformed_stream for bad HTTP framing, other), else nullptr when the
  // response arrived whole. `detail` explains the transport's code.
  RequestRecord Finish(Nanos end, const char* forced, const char* transport, std::string detail);

  const RequestRecord& record() const { return rec_; }
  bool has_events() const { return !rec_.events.empty(); }

 private:
  bool OnEvent(std::string_view data, bool error_field, Nanos t, StreamContext& ctx);
  void Conflict(std::string why);

  RequestRecord rec_;
  SseParser sse_;
  bool http_error_ = false;
  std::string error_body_;
  bool done_seen_ = false, finish_seen_ = false, have_usage_ = false;
  int64_t prompt_tokens_ = 0, completion_tokens_ = 0;
  int64_t content_events_ = 0;
  const char* fail_ = nullptr;
  std::string fail_detail_;
  std::string usage_conflict_;
};

}  // namespace frontier::client
