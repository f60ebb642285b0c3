#include "serve/http.h"


namespace frontier::serve {
std::string FormatStreamHead(bool chunked, std::string_view extra_headers) {
  std::string out =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
      "cache-control: no-cache\r\n";
  out += chunked ? "transfer-encoding: chunked\r\n" : "connection: close\r\n";
  out += extra_headers;
  out += "\r\n";
  return out;
}

void AppendBodyPart(std::string& out, std::string_view payload, bool chunked) {
  if (chunked) {
    net::AppendChunk(out, payload);
  } else {
    out += payload;
  }
}

}  // namespace frontier::serve
