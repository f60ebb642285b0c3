// backend.h: which API dialect a backend speaks, on which endpoint, and how
// its output tokens are counted. The one place `--backend` (bench, search)
// and a plan's `backend:` (sweep) are checked.
//
//   backend   endpoint (default first)                         dialect
//   openai    /v1/completions, /v1/chat/completions            OpenAI (any compatible server)
//   sglang    /generate                                        SGLang's native API
//   tgi       /generate_stream                                 Hugging Face TGI
//   trtllm    /v2/models/{model}[/versions/{v}]/generate_stream  Triton's generate extension
//                                                              (TensorRT-LLM's ensemble)
//   llamacpp  /completion                                      llama.cpp's native API
//
//   auto d = ResolveDialect("sglang", "/generate");            // Dialect::kSglang
//   std::string e = DefaultEndpoint("trtllm", "ensemble");      // /v2/models/ensemble/generate_stream
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "client/openai.h"
#include "core/status.h"

namespace frontier::client {

// The backends, as help text lists them.
inline constexpr const char* kBackendList = "openai, sglang, tgi, trtllm or llamacpp";

// How a message names the backend and the endpoint: the flags, or a plan's keys.
struct BackendFieldNames {
  std::string backend = "--backend";
  std::string endpoint = "--endpoint";
};

// The endpoint `backend` uses when none is given (trtllm's names `model`).
// InvalidArgument for an unknown backend, or trtllm without a model.
Result<std::string> DefaultEndpoint(std::string_view backend, std::string_view model,
                                    const BackendFieldNames& names = {});

// The dialect an endpoint's path names, when no backend is given (client
// options and plans without one): /v1/completions, /v1/chat/completions,
// /completion, /generate, /generate_stream, or
// /v2/models/{m}[/versions/{v}]/generate_stream; else InvalidArgument naming
// the endpoint field.
Result<Dialect> DialectForEndpoint(std::string_view endpoint, const BackendFieldNames& names = {});

// The dialect `backend` speaks on `endpoint`: InvalidArgument, one line naming
// the fields and the fix, for an unknown backend, an endpoint the backend does
// not serve, or an endpoint that belongs to another backend.
Result<Dialect> ResolveDialect(std::string_view backend, std::string_view endpoint,
                               const BackendFieldNames& names = {});

// The backend whose dialect `d` is ("openai" for completions and chat).
const char* BackendOf(Dialect d);

// True for dialects that take text only (no token-id prompt): OpenAI chat,
// TGI, and TensorRT-LLM's ensemble (whose text_input its tokenizer reads).
bool NeedsTextPrompts(Dialect d);

// Where a dialect's output-token counts come from, as stored in a run's
// effective settings ("token_counts"); docs/bench.md's backend table.
const char* TokenCountSource(Dialect d);

}  // namespace frontier::client
