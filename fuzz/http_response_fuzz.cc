// Fuzzes the client's HTTP/1.1 response parser and chunked decoder
// (net/http1.h): arbitrary bytes split into reads at positions taken from the
// input must never crash; the body it hands out is never longer than the
// input, each piece lies inside the read it came from, and feeding the same
// bytes whole or in pieces gives the same body and the same outcome.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/http1.h"

namespace {

struct Outcome {
  std::string body;
  frontier::net::ResponseParser::State state;
  int status;
};

Outcome Run(std::string_view input, size_t step) {
  frontier::net::ResponseParser p(1024);
  Outcome out;
  for (size_t i = 0; i < input.size(); i += step) {
    const std::string_view read = input.substr(i, step);
    const size_t used = p.Feed(read, [&](std::string_view piece) {
      if (piece.data() < read.data() || piece.data() + piece.size() > read.data() + read.size()) __builtin_trap();
      out.body.append(piece);
    });
    if (used > read.size()) __builtin_trap();
    if (used < read.size()) break;  // done (the rest is the next response) or malformed
    if (p.state() == frontier::net::ResponseParser::kDone || p.state() == frontier::net::ResponseParser::kError)
      break;
  }
  p.OnEof();
  out.state = p.state();
  out.status = p.head_done() ? p.head().status : 0;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t step = 1 + data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = Run(input, input.size() + 1);
  const Outcome pieces = Run(input, step);
  if (whole.body.size() > input.size()) __builtin_trap();
  if (whole.state != pieces.state || whole.status != pieces.status || whole.body != pieces.body) __builtin_trap();
  return 0;
}
