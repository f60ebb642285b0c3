// openai.h: the streaming dialects: OpenAI-compatible /v1/completions and
// /v1/chat/completions, and llama.cpp's native /completion: building a
// request body and reading one stream chunk. SGLang's, TGI's and
// TensorRT-LLM's native APIs go through the same BuildBody and ChunkReader;
// their shapes are in native_dialects.h.
//
// Request (OpenAI): {"model", "prompt" (token-id array or text) | "messages"
// [one user message], "max_tokens" (and, for chat, "max_completion_tokens"
// too: servers read one or the other), "temperature": 0, "stream": true,
// "stream_options": {"include_usage": true[, "continuous_usage_stats":
// true]}, "ignore_eos"}, then the --extra-body object merged on top (its keys
// win).
// Request (llama.cpp /completion): {"prompt" (token ids or text),
// "n_predict", "temperature": 0, "stream": true, "ignore_eos"}, then the
// --extra-body object.
//
// Chunk: what counts as a token-bearing event:
//   completions: choices[0].text non-empty;
//   chat: choices[0].delta.content (or reasoning_content / reasoning) non-empty;
//   llama.cpp: "content" non-empty, or "tokens" non-empty (a token whose text
//   the server holds back, part of a UTF-8 character, still arrived).
// A role-only chat delta, an empty string and a usage-only chunk (choices
// empty) carry no token. `usage` is read wherever it appears (continuous
// stats put it in every chunk; include_usage adds a final usage-only chunk);
// llama.cpp's native chunks give "tokens_predicted" and "tokens_evaluated" in
// every chunk, read as completion and prompt tokens, and "stop": true ends
// the stream (it sends no [DONE]).
// llama.cpp's server adds "timings" (prompt_n, prompt_ms, predicted_n,
// predicted_ms) to its last chunk, in both its dialects: read into
// Chunk::timings.
// An error chunk, in any of the servers' shapes, keeps the server's own words:
// {"error": {"message": ...}} (OpenAI, SGLang, llama.cpp as `data:`),
// {"error": "text"} (TGI with "error_type", Triton), vLLM's {"object":
// "error", "message": ...}, and an SSE
// `error:` field (llama.cpp; sse.h) read with ReadError.
//
// Parsing: simdjson's On-Demand front end, one pass over the chunk's
// top-level fields, reading only choices[0] (text / delta / finish_reason),
// usage, timings, model (when wanted) and error (and llama.cpp's content,
// tokens, stop and token counts); nothing is copied unless it is an error
// message or the model name.
//
// Thread safety: ChunkReader keeps a simdjson parser; one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/run_result.h"
#include "core/status.h"

namespace frontier::client {

// The request and stream shapes frontier speaks: OpenAI's completions and
// chat, llama.cpp's /completion (here), and the native APIs of SGLang, TGI and
// TensorRT-LLM's Triton (native_dialects.h). backend.h maps a backend and an
// endpoint to one.
enum class Dialect { kCompletions, kChat, kLlamaCpp, kSglang, kTgi, kTrtllm };

enum class UsageMode {
  kContinuous,  // include_usage + continuous_usage_stats (exact tokens per event; vLLM)
  kFinal,       // include_usage only (exact totals; tokens per event counted as 1)
  kOff,         // no stream_options: tokens counted from events
};

struct BodyOptions {
  Dialect dialect = Dialect::kCompletions;
  std::string model;
  UsageMode usage = UsageMode::kContinuous;
  bool ignore_eos = true;
  std::string extra_body;  // a JSON object, or empty
};

// Checks extra_body is a JSON object; InvalidArgument naming --extra-body.
Status ValidateExtraBody(const std::string& extra_body);

// The request body. Exactly one of token_ids / text is used (token_ids when
// non-empty). Chat, TGI and TensorRT-LLM need text: InvalidArgument
// otherwise. llama.cpp's native body has no model and no stream_options (its
// chunks always carry counts); the engines' native bodies are
// native_dialects.h's.
Result<std::string> BuildBody(const BodyOptions& options, std::span<const int32_t> token_ids,
                              std::string_view text, int32_t max_tokens);

struct Chunk {
  bool content = false;            // carries generated text (a token-bearing event)
  bool finish = false;             // a finish_reason was set
  bool has_usage = false;
  int64_t prompt_tokens = 0;       // valid when has_usage
  int64_t completion_tokens = 0;   // valid when has_usage
  bool error = false;              // an error object
  std::string error_message;       // set when error
  std::string model;               // set when present (copied only while `want_model`)
  bool has_timings = false;        // llama.cpp's "timings" object (its last chunk)
  ServerTimings timings;           // valid when has_timings
  // SGLang: the text and completion_tokens are running totals, so whether
  // the event carries tokens is decided by their growth (response_stream.cc).
  bool cumulative = false;
  int64_t cumulative_text_bytes = 0;  // size of the running text (JSON-escaped), when cumulative
  // TGI: usage is the response's total, given once with its last token: the
  // event carries one token, whatever the total says.
  bool usage_is_total = false;
  std::string error_type;          // TGI's "error_type", when given
};

class ChunkReader {
 public:
  ChunkReader();
  ~ChunkReader();
  // Parses one SSE data payload (JSON). REQUIRES: kSsePadding (sse.h)
  // readable bytes follow `data`. Returns false with `*why` set for invalid
  // JSON. With `text` set, the generated text the chunk carries (unescaped:
  // completions' choices[0].text, chat's choices[0].delta.content, not
  // reasoning) is appended to it; else no text is copied.
  bool Read(std::string_view data, Dialect dialect, bool want_model, Chunk* out, std::string* why,
            std::string* text = nullptr);

  // The server's words from an error payload (an SSE `error:` field's text,
  // JSON or not): its "message" when it is JSON with one, else the text.
  static std::string ErrorMessage(std::string_view payload);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace frontier::client
