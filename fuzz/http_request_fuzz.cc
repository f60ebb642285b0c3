// Fuzzes the HTTP/1.1 request head parser `frontier serve` and the scripted
// test server use (net/http1.h): arbitrary bytes must give a head, a need for
// more, or an error with a status to answer, never a crash; a parsed head
// never claims more bytes than it was given.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "net/http1.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  frontier::net::HttpRequest req;
  const frontier::net::HeadResult h = frontier::net::ParseRequestHead(input, 4096, req);
  switch (h.state) {
    case frontier::net::ParseState::kHeadDone:
      if (h.head_bytes > input.size()) __builtin_trap();
      if (req.content_length < 0) __builtin_trap();
      if (req.target.empty() || req.target[0] != '/') __builtin_trap();
      break;
    case frontier::net::ParseState::kError:
      if (h.error_status < 400 || h.error_status > 599 || h.error_message.empty()) __builtin_trap();
      break;
    case frontier::net::ParseState::kNeedMore:
      break;
  }
  return 0;
}
