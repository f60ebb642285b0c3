// http.h: the small part of HTTP/1.1 that `frontier serve` speaks (request
// framing from net/http1.h; the responses it writes are here).
//
// Requests: a request line, headers, and a body framed by Content-Length
// (chunked request bodies are refused with 411, as many API servers do).
// "Expect: 100-continue" is honoured. Keep-alive is the HTTP/1.1 default;
// "Connection: close" or HTTP/1.0 without keep-alive closes after the response.
// Responses: Content-Length bodies, or for streams chunked transfer encoding
// (HTTP/1.1) / a close-delimited body (HTTP/1.0).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/http1.h"

namespace frontier::serve {

// The request framing is net/http1.h's, shared with the scripted test server.
using net::HeadResult;
using net::HttpRequest;
using net::ParseRequestHead;
using net::ParseState;

// Whole responses are written as net/http1.h writes them for every server.
using net::FormatResponse;
using net::ReasonPhrase;

// The head of a streamed (SSE) response: chunked for HTTP/1.1, else close-delimited.
std::string FormatStreamHead(bool chunked, std::string_view extra_headers = {});

// Appends `payload` to `out` as one chunk (chunked) or raw (close-delimited).
void AppendBodyPart(std::string& out, std::string_view payload, bool chunked);

using net::kLastChunk;

}  // namespace frontier::serve
