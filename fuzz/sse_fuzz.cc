// Fuzzes the client's SSE framer (client/sse.h) and the chunk reader behind
// it (client/openai.h, every dialect: OpenAI's, llama.cpp's, SGLang's, TGI's,
// Triton's; native_dialects.h): arbitrary bytes, split into reads at positions taken
// from the input, must never crash, overrun, or deliver an event that is not
// in the input; every event is parsed as the client would parse it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "client/openai.h"
#include "client/sse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte chooses the read size (1..256) and the dialect.
  using frontier::client::Dialect;
  constexpr Dialect kDialects[] = {Dialect::kCompletions, Dialect::kChat, Dialect::kLlamaCpp,
                                   Dialect::kSglang,      Dialect::kTgi,  Dialect::kTrtllm};
  const size_t step = 1 + (data[0] & 0xff);
  const Dialect dialect = kDialects[data[0] % 6];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  frontier::client::SseParser sse(4096);
  frontier::client::ChunkReader reader;
  size_t events = 0;
  for (size_t i = 0; i < input.size(); i += step) {
    // Each read in its own buffer, with the padding the framer may read past an event.
    std::string read(input.substr(i, step));
    read.reserve(read.size() + frontier::client::kSsePadding);
    const bool ok = sse.Feed(read, [&](std::string_view event, bool error) {
      ++events;
      if (event.size() > input.size()) __builtin_trap();  // an event cannot be longer than the input
      if (error) {
        (void)frontier::client::ChunkReader::ErrorMessage(event);
        return true;
      }
      frontier::client::Chunk c;
      std::string why, text;
      (void)reader.Read(event, dialect, true, &c, &why, &text);
      return true;
    });
    if (!ok) break;
  }
  (void)sse.HasPartialEvent();
  (void)events;
  return 0;
}
