// openai.h: the OpenAI-compatible request and response bodies `frontier serve`
// reads and writes (completions and chat completions, streaming and not).
//
// Request fields honoured: model, prompt (text, token ids, or a one-element
// list of either), messages (string content or text parts), max_tokens,
// max_completion_tokens (wins over max_tokens, as in vLLM), min_tokens,
// ignore_eos, stop (string or list), stream, stream_options.include_usage,
// stream_options.continuous_usage_stats, n (must be 1), seed. Other fields
// (temperature, top_p, ...) are accepted and ignored: the tokens are synthetic.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::serve {

enum class ApiKind { kCompletions, kChat };

struct GenerationRequest {
  ApiKind kind = ApiKind::kCompletions;
  std::string model;                  // empty: the served model
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage = false;
  std::optional<int64_t> max_tokens;  // max_completion_tokens, else max_tokens
  int64_t min_tokens = 0;
  bool ignore_eos = false;
  std::vector<std::string> stop;
  int64_t prompt_tokens = 0;          // token ids: exact; text: CountTextTokens (synthetic.h)
  uint64_t prompt_hash = 0;           // seeds the generated tokens
  std::vector<int32_t> prompt_ids;    // token ids (as sent, folded to 31 bits) or AppendTextTokenIds of the text
  std::optional<int64_t> seed;
};

// An error answered as {"error": {"message", "type", "param", "code"}}.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;                  // empty: null
  std::string code;                   // empty: the HTTP status as a number
};

// Parses and validates a request body. Returns the error to answer with (400
// naming the field and what it must be) or nullopt and fills `out`.
std::optional<ApiError> ParseGenerationRequest(ApiKind kind, std::string_view body,
                                               GenerationRequest& out);

std::string ErrorJson(const ApiError& e);

// Appends `s` to `out` JSON-escaped (without quotes).
void AppendJsonEscaped(std::string& out, std::string_view s);

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

// The part every body of one response shares:
// {"id":"<id>","object":"<object>","created":<created>,"model":"<model>"
// (no closing brace). `object` follows from kind and whether it streams.
std::string ResponseHead(ApiKind kind, bool stream, std::string_view id, int64_t created,
                         std::string_view model);

// One SSE event ("data: {...}\n\n") carrying `delta` text; finish_reason is
// null unless given; usage is added when given (continuous usage stats).
void AppendContentEvent(std::string& out, ApiKind kind, std::string_view head, std::string_view delta,
                        const char* finish_reason, const Usage* usage);
// The chat stream's first event: delta {"role":"assistant","content":""}.
void AppendRoleEvent(std::string& out, std::string_view head, const Usage* usage);
// The final usage event: empty choices, usage set.
void AppendUsageEvent(std::string& out, std::string_view head, const Usage& usage);
inline constexpr std::string_view kDoneEvent = "data: [DONE]\n\n";

// The whole non-streaming body.
std::string FinalBody(ApiKind kind, std::string_view head, std::string_view text,
                      const char* finish_reason, const Usage& usage);

// GET /v1/models.
std::string ModelsJson(std::string_view model, int64_t created, int64_t max_model_len);

}  // namespace frontier::serve
