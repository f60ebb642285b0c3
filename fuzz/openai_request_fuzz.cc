// Request bodies sent to `frontier serve` (/v1/completions and
// /v1/chat/completions): every body is accepted or answered with a 400 naming
// the field, never a crash or an exception, and the token counts of an
// accepted request fit the engine's 32-bit lengths.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "serve/openai.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  using frontier::serve::ApiKind;
  for (ApiKind kind : {ApiKind::kCompletions, ApiKind::kChat}) {
    frontier::serve::GenerationRequest r;
    auto error = frontier::serve::ParseGenerationRequest(kind, body, r);
    if (error) {
      if (error->status != 400 || error->message.empty()) __builtin_trap();
      (void)frontier::serve::ErrorJson(*error);
      continue;
    }
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (r.prompt_tokens < 1 || (r.max_tokens && (*r.max_tokens < 1 || *r.max_tokens > kMax)) || r.min_tokens < 0 ||
        r.min_tokens > kMax)
      __builtin_trap();
  }
  return 0;
}
