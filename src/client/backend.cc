#include "client/backend.h"

namespace frontier::client {
namespace {

bool TritonStreamPath(std::string_view e) {
  // /v2/models/{name}[/versions/{version}]/generate_stream, names without '/'.
  constexpr std::string_view kPrefix = "/v2/models/", kSuffix = "/generate_stream";
  if (e.size() <= kPrefix.size() + kSuffix.size() || e.substr(0, kPrefix.size()) != kPrefix ||
      e.substr(e.size() - kSuffix.size()) != kSuffix)
    return false;
  std::string_view middle = e.substr(kPrefix.size(), e.size() - kPrefix.size() - kSuffix.size());
  const size_t slash = middle.find('/');
  if (slash == std::string_view::npos) return !middle.empty();
  const std::string_view name = middle.substr(0, slash), rest = middle.substr(slash);
  constexpr std::string_view kVersions = "/versions/";
  return !name.empty() && rest.size() > kVersions.size() && rest.substr(0, kVersions.size()) == kVersions &&
         rest.substr(kVersions.size()).find('/') == std::string_view::npos;
}

// What a backend speaks, for messages.
const char* Speaks(std::string_view backend) {
  if (backend == "sglang") return "SGLang's native /generate";
  if (backend == "tgi") return "TGI's /generate_stream";
  if (backend == "trtllm") return "Triton's /v2/models/{model}/generate_stream (TensorRT-LLM)";
  if (backend == "llamacpp") return "llama.cpp's native /completion";
  return "the OpenAI-compatible /v1/completions and /v1/chat/completions";
}

bool Known(std::string_view backend) {
  return backend == "openai" || backend == "sglang" || backend == "tgi" || backend == "trtllm" ||
         backend == "llamacpp";
}

}  // namespace

Result<Dialect> DialectForEndpoint(std::string_view e, const BackendFieldNames& names) {
  if (e == "/v1/completions") return Dialect::kCompletions;
  if (e == "/v1/chat/completions") return Dialect::kChat;
  if (e == "/completion") return Dialect::kLlamaCpp;
  if (e == "/generate") return Dialect::kSglang;
  if (e == "/generate_stream") return Dialect::kTgi;
  if (TritonStreamPath(e)) return Dialect::kTrtllm;
  std::string hint;
  if (e.rfind("/v2/models/", 0) == 0)
    hint = " (Triton streams from /v2/models/{model}/generate_stream)";
  return InvalidArgument(names.endpoint +
                         " must be /v1/completions, /v1/chat/completions (openai), /generate (sglang), "
                         "/generate_stream (tgi), /v2/models/{model}/generate_stream (trtllm) or /completion "
                         "(llamacpp), got '" +
                         std::string(e) + "'" + hint);
}

Result<std::string> DefaultEndpoint(std::string_view backend, std::string_view model,
                                    const BackendFieldNames& names) {
  if (backend == "openai") return std::string("/v1/completions");
  if (backend == "sglang") return std::string("/generate");
  if (backend == "tgi") return std::string("/generate_stream");
  if (backend == "llamacpp") return std::string("/completion");
  if (backend == "trtllm") {
    const std::string path = "/v2/models/" + std::string(model) + "/generate_stream";
    if (model.empty() || !TritonStreamPath(path))
      return InvalidArgument(names.backend + " trtllm needs the Triton model's name (e.g. ensemble) to build " +
                             names.endpoint + " /v2/models/{model}/generate_stream, got '" + std::string(model) + "'");
    return path;
  }
  return InvalidArgument(names.backend + " must be " + kBackendList + ", got '" + std::string(backend) + "'");
}

Result<Dialect> ResolveDialect(std::string_view backend, std::string_view endpoint, const BackendFieldNames& names) {
  if (!Known(backend))
    return InvalidArgument(names.backend + " must be " + kBackendList + ", got '" + std::string(backend) + "'");
  FRONTIER_ASSIGN_OR_RETURN(Dialect d, DialectForEndpoint(endpoint, names));
  if (BackendOf(d) == backend) return d;
  if (backend == "openai")
    return InvalidArgument(names.endpoint + " " + std::string(endpoint) + " is " + Speaks(BackendOf(d)) +
                           " API: add " + names.backend + " " + BackendOf(d));
  return InvalidArgument(names.backend + " " + std::string(backend) + " speaks " + Speaks(backend) + ", not " +
                         names.endpoint + " " + std::string(endpoint) + " (use " + names.backend + " " +
                         BackendOf(d) + " for it)");
}

namespace {

// A dialect's backend name and where its token counts come from.
struct DialectNames {
  const char* backend;
  const char* token_counts;
};

DialectNames NamesOf(Dialect d) {
  switch (d) {
    case Dialect::kCompletions:
    case Dialect::kChat:
      return {"openai", "usage (per --usage), else one per content event"};
    case Dialect::kLlamaCpp:
      return {"llamacpp", "tokens_predicted in every chunk"};
    case Dialect::kSglang:
      return {"sglang", "meta_info.completion_tokens in every chunk"};
    case Dialect::kTgi:
      return {"tgi", "one per token event; details.generated_tokens for the total"};
    case Dialect::kTrtllm:
      return {"trtllm", "one per non-empty text_output event (no count in the stream)"};
  }
  return {"openai", ""};
}

}  // namespace

const char* BackendOf(Dialect d) { return NamesOf(d).backend; }

bool NeedsTextPrompts(Dialect d) { return d == Dialect::kChat || d == Dialect::kTgi || d == Dialect::kTrtllm; }

const char* TokenCountSource(Dialect d) { return NamesOf(d).token_counts; }

}  // namespace frontier::client
