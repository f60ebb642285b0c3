// native_wire.h: internal to the scripted server. The stream events of the
// engines' native APIs, as their documentation gives them
// (client/native_dialects.h cites the documents), built for a script:
//
//   SGLang  POST /generate:  data: {"text": <whole text so far>, "output_ids",
//           "meta_info": {"id", "finish_reason", "prompt_tokens",
//           "completion_tokens", "cached_tokens", "e2e_latency"}} per event
//           (k tokens: completion_tokens grows by k), then data: [DONE].
//   TGI     POST /generate_stream:  data: {"index", "token": {"id", "text",
//           "logprob", "special"}, "generated_text": null, "details": null}
//           per token; the last has "generated_text" and "details":
//           {"finish_reason", "generated_tokens", "seed"}. No [DONE].
//   Triton  POST /v2/models/{m}/generate_stream:  data: {"model_name",
//           "model_version", "text_output"} per token; the body just ends.
//
// TGI and Triton events carry one token each (the script's tokens_pattern is
// not theirs to follow). Errors: SGLang {"error": {"message"}} then [DONE];
// TGI {"error", "error_type"}; Triton {"error"}.
//
// Thread safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace frontier::testing::internal {

enum class NativeWire { kNone, kSglang, kTgi, kTriton };

// The wire a request path asks for (kNone: not a native engine path).
NativeWire WireForPath(std::string_view path);

// Prompt tokens of a native request body (token ids counted; text as
// bytes / 4 + 1, as for the OpenAI paths).
int64_t NativePromptTokens(NativeWire w, const std::string& body);

struct WireEvent {
  int64_t prompt_tokens = 0;
  int64_t tokens_after = 0;      // completion tokens sent, this event's included
  int32_t event_index = 0;       // 0-based
  int32_t k = 1;                 // tokens this event carries (SGLang)
  bool last = false;             // the last content event
  bool counts = true;            // SGLang: meta_info present; TGI: details.generated_tokens present
  int64_t reported_total = -1;   // >= 0: the count to report instead of tokens_after
  std::string_view model;
};

// The JSON payload of one content event.
std::string NativeEvent(NativeWire w, const WireEvent& e);
// The SSE data payloads after the last event ("[DONE]" for SGLang; none for the others).
std::string_view NativeEnd(NativeWire w);
// The dialect's error payload, with the server's words `message`.
std::string NativeError(NativeWire w, std::string_view message);

}  // namespace frontier::testing::internal
