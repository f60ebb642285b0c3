// models.h: what a server says about the model it serves (GET /v1/models),
// read once before a run, off the measured path.
//
//   auto info = client::QueryModel(options, 5 * kNanosPerSecond);
//   if (info.ok() && info->n_vocab > 0) ...  // llama.cpp's "meta": {"n_vocab": N}
//
// Thread safety: a pure function (its own libcurl handle).
#pragma once

#include <cstdint>
#include <string>

#include "client/stream_client.h"
#include "core/status.h"

namespace frontier::client {

struct ModelInfo {
  std::string id;        // the entry used: the one named options.model, else the first
  int64_t n_vocab = 0;   // its vocabulary size when the server says (llama.cpp: meta.n_vocab); 0 if not
};

// GET <base-url>/v1/models. Unavailable (naming the URL and why) when the
// server cannot be reached or answers other than 200 with a model list.
Result<ModelInfo> QueryModel(const ClientOptions& options, Nanos timeout);

// GET `url` with the options' API key and headers (and TLS settings), off the
// measured path. Returns the body of a 200 answer. Unavailable naming the URL
// and why (unreachable, timed out, another status, a body over `max_bytes`).
Result<std::string> HttpGet(const ClientOptions& options, const std::string& url, Nanos timeout,
                            size_t max_bytes);

// The model list's JSON, parsed (exposed for tests). InvalidArgument when it
// is not a list of models.
Result<ModelInfo> ParseModels(const std::string& body, const std::string& model);

}  // namespace frontier::client
