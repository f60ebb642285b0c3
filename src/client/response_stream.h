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
// Cancellation: a request started with cancel_after_tokens = K < max_tokens
// stops at the event that brings its K-th output token, unless that event
// also finishes the response (as the simulator does, sim/sim_target.h): the
// rest of the read is not parsed, the transport closes the connection (the
// server sees the client leave), and the record ends cancelled (failure
// kCancelled) with exactly the tokens of the events received. A forced end
// with failure::kCancelled (the load core's time-based cancel) is cancelled
// too.
//
// Token counts by dialect (openai.h, native_dialects.h): usage in every
// chunk gives each content event the growth of completion_tokens; SGLang's
// running counts decide whether an event carries tokens at all (an event
// that repeats the count carries none); TGI's total, given with its last
// token, counts that event as one.
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
#include <unordered_map>

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
  // The generated text of ended requests begun with keep_text, by id, until
  // StreamClient::TakeText takes it.
  std::unordered_map<int64_t, std::string> texts;
};

// What a transport needs to know of one request besides its body.
struct StreamSpec {
  int64_t id = 0;
  int32_t max_tokens = 0;
  int32_t cancel_after_tokens = 0;  // K > 0: stop after K output tokens (see above)
  bool keep_text = false;           // keep the generated text (TakeText)
  // The whole body is the end of the stream (Triton's generate_stream sends
  // no [DONE] and no finish field); else [DONE] or a finish reason is.
  bool body_end_finishes = false;
};

class ResponseStream {
 public:
  // Starts a request, handed over at `sent_ns`.
  void Begin(const StreamSpec& spec, Nanos sent_ns);

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
  bool cancelled() const { return cancelled_; }
  // The generated text so far (the content events' text concatenated), when
  // begun with keep_text; moved out.
  bool keeps_text() const { return keep_text_; }
  std::string TakeText() { return std::move(text_); }
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
  int64_t tokens_seen_ = 0;          // output tokens of the content events so far
  int64_t cumulative_text_bytes_ = 0;  // SGLang's running text so far (its size)
  bool body_end_finishes_ = false;
  int32_t cancel_after_ = 0;         // 0: never
  bool keep_text_ = false;
  std::string text_;
  bool cancelled_ = false;
  const char* fail_ = nullptr;
  std::string fail_detail_;
  std::string usage_conflict_;
};

}  // namespace frontier::client
