#include "client/response_stream.h"

#include <algorithm>

#include "core/limits.h"

namespace frontier::client {

void ResponseStream::Begin(const StreamSpec& spec, Nanos sent_ns) {
  const int32_t max_tokens = spec.max_tokens;
  rec_ = RequestRecord{};
  rec_.id = spec.id;
  rec_.requested_output_tokens = max_tokens;
  // A request that cannot outgrow K ends with its K-th token: it ends normally.
  cancel_after_ = spec.cancel_after_tokens > 0 && spec.cancel_after_tokens < max_tokens ? spec.cancel_after_tokens : 0;
  keep_text_ = spec.keep_text;
  body_end_finishes_ = spec.body_end_finishes;
  cumulative_text_bytes_ = 0;
  text_.clear();
  cancelled_ = false;
  tokens_seen_ = 0;
  rec_.sent_ns = sent_ns;
  // One slot per token the server may send, plus slack: no allocation per event.
  rec_.events.reserve(static_cast<size_t>(std::clamp<int32_t>(max_tokens, 0, 1 << 16)) + 2);
  sse_.Reset();
  http_error_ = done_seen_ = finish_seen_ = have_usage_ = false;
  error_body_.clear();
  prompt_tokens_ = completion_tokens_ = content_events_ = 0;
  fail_ = nullptr;
  fail_detail_.clear();
  usage_conflict_.clear();
}

void ResponseStream::OnStatus(int status) {
  rec_.http_status = status;
  http_error_ = status >= 300;
}

bool ResponseStream::OnBody(std::string_view bytes, Nanos t, StreamContext& ctx) {
  if (cancelled_) return false;
  if (http_error_) {
    const size_t room = ctx.max_error_body > error_body_.size() ? ctx.max_error_body - error_body_.size() : 0;
    error_body_.append(bytes.substr(0, room));
    return true;
  }
  if (fail_) return false;
  const bool ok = sse_.Feed(bytes, [&](std::string_view data, bool err) { return OnEvent(data, err, t, ctx); });
  if (!ok) {
    fail_ = failure::kMalformed;
    fail_detail_ = sse_.error();
    return false;
  }
  return fail_ == nullptr && !cancelled_;
}

void ResponseStream::Conflict(std::string why) {
  if (usage_conflict_.empty()) usage_conflict_ = std::move(why);
}

bool ResponseStream::OnEvent(std::string_view data, bool error_field, Nanos t, StreamContext& ctx) {
  ++ctx.events;
  if (error_field) {  // an SSE "error:" field (llama.cpp)
    fail_ = failure::kHttpStatus;
    fail_detail_ = "error event in the stream: " + ChunkReader::ErrorMessage(data);
    return false;
  }
  if (data == "[DONE]") {
    done_seen_ = true;
    return true;
  }
  Chunk c;
  std::string why;
  if (!ctx.reader.Read(data, ctx.dialect, ctx.served_model.empty(), &c, &why, keep_text_ ? &text_ : nullptr)) {
    fail_ = failure::kMalformed;
    fail_detail_ = std::move(why);
    return false;
  }
  if (c.error) {
    fail_ = failure::kHttpStatus;
    fail_detail_ = "error event in the stream: " + c.error_message;
    if (!c.error_type.empty()) fail_detail_ += " (" + c.error_type + ")";
    return false;
  }
  if (c.cumulative) {  // SGLang: tokens arrived when the running count (or text) grew
    if (c.has_usage) {
      c.content = c.completion_tokens > (have_usage_ ? completion_tokens_ : 0);
    } else {
      c.content = c.cumulative_text_bytes > cumulative_text_bytes_;
    }
    cumulative_text_bytes_ = std::max(cumulative_text_bytes_, c.cumulative_text_bytes);
  }
  if (!c.model.empty()) ctx.served_model = std::move(c.model);
  if (c.has_timings) rec_.server_timings = c.timings;
  if (c.finish) finish_seen_ = true;
  if (c.has_usage && have_usage_ && c.completion_tokens < completion_tokens_)
    Conflict("usage.completion_tokens fell from " + std::to_string(completion_tokens_) + " to " +
             std::to_string(c.completion_tokens));
  if (c.content) {
    ++content_events_;
    int64_t k = 1;
    // With usage in every chunk, the tokens an event carried are the growth of completion_tokens.
    if (c.has_usage && !c.usage_is_total) {
      k = c.completion_tokens - (have_usage_ ? completion_tokens_ : 0);
      if (k < 1) {
        Conflict("a content event at which usage.completion_tokens did not grow (" +
                 std::to_string(c.completion_tokens) + ")");
        k = 1;
      }
    }
    rec_.events.push_back({t, static_cast<int32_t>(std::min<int64_t>(k, 1 << 30))});
    tokens_seen_ += k;
  }
  if (c.has_usage) {
    have_usage_ = true;
    completion_tokens_ = c.completion_tokens;
    prompt_tokens_ = c.prompt_tokens;
  }
  if (cancel_after_ > 0 && c.content && !c.finish && tokens_seen_ >= cancel_after_) {
    cancelled_ = true;  // the client leaves here: nothing after this event is read
    return false;
  }
  return true;
}

RequestRecord ResponseStream::Finish(Nanos end, const char* forced, const char* transport, std::string detail) {
  RequestRecord& r = rec_;
  r.end_ns = end;
  if (forced) {
    r.failure = forced;
    r.failure_detail = std::move(detail);
    r.cancelled = std::string_view(forced) == failure::kCancelled;
  } else if (cancelled_) {
    r.failure = failure::kCancelled;
    r.failure_detail = "cancelled by the client after " + std::to_string(tokens_seen_) + " output tokens";
    r.cancelled = true;
  } else if (fail_) {
    r.failure = fail_;
    r.failure_detail = std::move(fail_detail_);
  } else if (http_error_) {
    r.failure = r.http_status == 429 ? failure::kRateLimited : failure::kHttpStatus;
    r.failure_detail = "HTTP " + std::to_string(r.http_status) + ": " + error_body_;
  } else if (transport && (r.http_status == 0 || std::string_view(transport) != failure::kClosedMidStream)) {
    r.failure = transport;
    r.failure_detail = std::move(detail);
  } else if (transport || sse_.HasPartialEvent() || (!done_seen_ && !finish_seen_ && !body_end_finishes_)) {
    r.failure = failure::kClosedMidStream;
    r.failure_detail = transport ? std::move(detail) : std::string("the response ended before [DONE]");
  } else if (r.events.empty()) {
    r.failure = failure::kNoTokens;
    r.failure_detail = "the stream finished without a token-bearing event";
  } else {
    r.ok = true;
  }
  if (!r.events.empty()) r.first_token_ns = r.events.front().t_ns;
  if (have_usage_ && completion_tokens_ < content_events_)
    Conflict("usage.completion_tokens " + std::to_string(completion_tokens_) + " is below the " +
             std::to_string(content_events_) + " content events received");
  // A count no stream could carry is not a count: a server that reports
  // completion_tokens of INT64_MAX must not become 1e11 tokens/s in a result.
  // An event carries at most 65 tokens (64 speculative ones and the one
  // verified, the --spec-tokens bound); max_tokens is not the bound, since a
  // server may ignore it and its tokens were still generated.
  constexpr int64_t kMostTokensPerEvent = 65;
  const int64_t most = std::min<int64_t>(bounds::kMaxRequestTokens, kMostTokensPerEvent * std::max<int64_t>(content_events_, 1));
  if (have_usage_ && (completion_tokens_ < 0 || completion_tokens_ > most))
    Conflict("usage.completion_tokens " + std::to_string(completion_tokens_) + " is outside [0, " +
             std::to_string(most) + "], at most 65 tokens for each of the " + std::to_string(content_events_) +
             " content events received");
  if (have_usage_ && (prompt_tokens_ < 0 || prompt_tokens_ > bounds::kMaxRequestTokens))
    Conflict("usage.prompt_tokens " + std::to_string(prompt_tokens_) + " is outside [0, " +
             std::to_string(bounds::kMaxRequestTokens) + "]");
  r.usage_reported = have_usage_ && usage_conflict_.empty();
  if (!usage_conflict_.empty()) {
    // Not trusted: count one token per content event.
    for (auto& e : r.events) e.tokens = 1;
    r.usage_conflict = std::move(usage_conflict_);
  }
  if (r.usage_reported) {
    r.output_tokens = static_cast<int32_t>(std::clamp<int64_t>(completion_tokens_, 0, INT32_MAX));
    r.prompt_tokens = static_cast<int32_t>(std::clamp<int64_t>(prompt_tokens_, 0, INT32_MAX));
  } else {
    int64_t sum = 0;
    for (const auto& e : r.events) sum += e.tokens;
    r.output_tokens = static_cast<int32_t>(std::min<int64_t>(sum, INT32_MAX));
  }
  return std::move(r);
}

}  // namespace frontier::client
