// native_dialects.h: the engines' own streaming APIs, beside OpenAI's and
// llama.cpp's (openai.h): the request body each takes and what one stream
// event of each says. Internal to the client: StreamClient builds bodies with
// BuildBody and ChunkReader reads chunks (openai.h), which call these.
//
// SGLang, POST /generate. Follows SGLang's docs/sampling_params.md (the
// /generate arguments, GenerateReqInput and SamplingParams) and the stream
// loop of python/sglang/srt/entrypoints/http_server.py (generate_request).
//   body:  {"text": "..." | "input_ids": [...], "sampling_params":
//          {"max_new_tokens": N, "temperature": 0, "ignore_eos": true}, "stream": true}
//   event: data: {"text": <the whole text so far>, "output_ids": [...],
//          "meta_info": {"id", "finish_reason": null | {"type": "length", ...},
//          "prompt_tokens", "completion_tokens", "cached_tokens", ...}}
//          ... then data: [DONE]. An error: data: {"error": {"message": ...}},
//          then [DONE].
//   tokens: meta_info.completion_tokens is a running count in every event; an
//          event brings tokens when it grows (by the growth), so an event that
//          repeats the count carries none. Without meta_info, an event whose
//          cumulative text grew is one token.
//
// TGI, POST /generate_stream. Follows TGI's OpenAPI schema
// (router/src/lib.rs: GenerateRequest, GenerateParameters, StreamResponse,
// StreamDetails, ErrorResponse).
//   body:  {"inputs": "...", "parameters": {"max_new_tokens": N, "details": true,
//          "do_sample": false}} (TGI takes no token ids, no temperature 0 and
//          no ignore_eos: a request may stop at EOS before N)
//   event: data: {"index", "token": {"id", "text", "logprob", "special"},
//          "generated_text": null, "details": null}; the last one carries the
//          last token and "generated_text" and "details": {"finish_reason",
//          "generated_tokens", "seed"[, "prompt_tokens" / "input_length"]}.
//          No [DONE]. An error: data: {"error": "...", "error_type": "..."}.
//   tokens: every event carries exactly one token (special ones such as EOS
//          included: the engine generated them); details.generated_tokens is
//          the total.
//
// TensorRT-LLM behind Triton, POST /v2/models/{model}/generate_stream.
// Follows Triton's "Generate Extension" (docs/protocol/extension_generate.md:
// the body's fields are the model's inputs by name, each response an SSE
// data chunk, an error object mid-stream) and the inputs of tensorrtllm_backend's
// ensemble (all_models/inflight_batcher_llm/ensemble/config.pbtxt: text_input,
// max_tokens, stream, the optional min_length).
//   body:  {"text_input": "...", "max_tokens": N, "stream": true,
//          "min_length": N when ignore_eos} (text only)
//   event: data: {"model_name", "model_version", "text_output": "...", ...}
//          per decoding step; the stream ends with the body (no [DONE], no
//          finish field). An error: data: {"error": "..."}.
//   tokens: the stream gives no count. Rule: an event with non-empty
//          text_output is one token; an empty one is none. A step that
//          emits several tokens (speculative decoding) counts as one, so
//          such runs undercount: the record's usage_reported is false.
//
// --extra-body is merged into a native body as a JSON merge patch (RFC 7396):
// {"sampling_params": {"top_p": 0.9}} adds to SGLang's sampling params
// instead of replacing them; null removes a key.
//
// Thread safety: stateless functions.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "client/openai.h"
#include "core/status.h"

namespace frontier::client::internal {

// True for kSglang, kTgi and kTrtllm.
bool IsNativeEngineDialect(Dialect d);

// The request body for a native dialect (see above). Token ids are used when
// non-empty; TGI and TensorRT-LLM refuse them (InvalidArgument naming
// --prompt-format text).
Result<std::string> BuildNativeBody(const BodyOptions& options, std::span<const int32_t> token_ids,
                                    std::string_view text, int32_t max_tokens);

// Reads one top-level field `key` of a native dialect's event into `out`
// (content, usage, finish, model, error type; "error" itself is read by
// ChunkReader for every dialect). With `text` set, the event's text goes to
// it (SGLang's cumulative text replaces it; TGI's non-special token text and
// Triton's text_output are appended).
simdjson::error_code ReadNativeField(Dialect d, simdjson::ondemand::raw_json_string key,
                                     simdjson::ondemand::value v, bool want_model, Chunk* out, std::string* text);

}  // namespace frontier::client::internal
