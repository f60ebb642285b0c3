#include "serve/http.h"


namespace frontier::serve {
const char* ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string FormatResponse(int status, std::string_view content_type, std::string_view body,
                           bool keep_alive, std::string_view extra_headers) {
  std::string out;
  out.reserve(160 + body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += ReasonPhrase(status);
  out += "\r\ncontent-type: ";
  out += content_type;
  out += "\r\ncontent-length: ";
  out += std::to_string(body.size());
  out += keep_alive ? "\r\n" : "\r\nconnection: close\r\n";
  out += extra_headers;
  out += "\r\n";
  out += body;
  return out;
}

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
