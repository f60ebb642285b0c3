// target_request.cc: the target flags' table and their resolution into
// benchmark options (target_request.h).
#include "loadgen/target_request.h"

#include <charconv>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "client/backend.h"
#include "core/cpus.h"
#include "core/parse.h"
#include "loadgen/worker_pool.h"

namespace frontier::loadgen {
namespace {

const FlagRow<TargetRequest> kFlags[] = {
    {"--base-url", &TargetRequest::base_url, "Server URL, http:// or https:// [http://127.0.0.1:8000]", "Target"},
    {"--backend", &TargetRequest::backend, "API dialect: openai (OpenAI-compatible, any server), sglang (SGLang's native /generate), tgi (TGI's /generate_stream), trtllm (Triton's generate_stream, TensorRT-LLM) or llamacpp (llama.cpp's native /completion) [openai]", "Target"},
    {"--endpoint", &TargetRequest::endpoint, "openai: /v1/completions or /v1/chat/completions; sglang: /generate; tgi: /generate_stream; trtllm: /v2/models/{model}[/versions/{v}]/generate_stream; llamacpp: /completion [the backend's first; trtllm's names --model]", "Target"},
    {"--model", &TargetRequest::model, "Model name sent in each request (required)", "Target"},
    {"--api-key", &TargetRequest::api_key, "Bearer token [$OPENAI_API_KEY]", "Target"},
    {"--header", &TargetRequest::headers, "Extra request header 'Name: value' (repeatable)", "Target"},
    {"--extra-body", &TargetRequest::extra_body, "JSON object merged into every request body", "Target"},
    {"--usage", &TargetRequest::usage, "openai: token counts from the server: continuous (usage in every chunk), final, off; the native backends read their own counts [continuous]", "Target"},
    {"--insecure", &TargetRequest::insecure, "https: do not verify the server's certificate", "Target"},
    {"--timeout", &TargetRequest::timeout_s, "Total time limit per request, seconds (0 = none) [600]", "Target"},
    {"--connect-timeout", &TargetRequest::connect_timeout_s, "Connect time limit, seconds [10]", "Target"},
    {"--first-token-timeout", &TargetRequest::first_token_timeout_s, "Time limit to the first token, seconds (0 = none) [0]", "Target"},
    {"--grace", &TargetRequest::grace_s, "After Ctrl-C, seconds in-flight requests may finish [5]", "Output"},
    {"--workers", &TargetRequest::workers, "Event loops on their own threads, each owning its streams: N or auto (one per CPU) [1]", "Load"},
    {"--vocab-size", &TargetRequest::vocab_size, "Token-id prompts: ids drawn below this, when the server's /v1/models gives no vocabulary size (llama.cpp gives meta.n_vocab) [32000]", "Workload"},
};

}  // namespace

std::span<const FlagRow<TargetRequest>> TargetFlagRows() { return kFlags; }

Result<BenchOptions> ResolveTarget(const TargetRequest& f, const std::string& model, const ResolvedWorkload& w) {
  if (model.empty()) return InvalidArgument("--model is required (the model name the server serves)");
  std::string endpoint = f.endpoint;
  if (endpoint.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(endpoint, client::DefaultEndpoint(f.backend, model));
  }
  FRONTIER_ASSIGN_OR_RETURN(client::Dialect dialect, client::ResolveDialect(f.backend, endpoint));
  if (client::NeedsTextPrompts(dialect) && w.dataset.kind == workload::DatasetKind::kRandom &&
      w.dataset.random.format == workload::PromptFormat::kTokenIds) {
    if (dialect == client::Dialect::kChat)
      return InvalidArgument("--endpoint /v1/chat/completions needs text prompts: add --prompt-format text");
    return InvalidArgument("--backend " + f.backend + " takes text prompts (" +
                           (dialect == client::Dialect::kTgi ? "TGI's inputs" : "the Triton model's text_input") +
                           " is text, not token ids): add --prompt-format text");
  }
  BenchOptions o;
  if (f.workers == "auto") {
    o.workers = static_cast<int>(UsableCpus());  // the CPUs this process may run on
  } else {
    int n = 0;
    auto [end, ec] = std::from_chars(f.workers.data(), f.workers.data() + f.workers.size(), n);
    if (ec != std::errc() || end != f.workers.data() + f.workers.size() || n < 1 || n > 1024)
      return InvalidArgument("--workers must be auto or an integer in [1, 1024], got '" + f.workers + "'");
    o.workers = n;
  }
  if (f.vocab_size != 0) FRONTIER_RETURN_IF_ERROR(CheckRange("--vocab-size", f.vocab_size, 2, INT32_MAX));
  o.client.base_url = f.base_url;
  o.client.backend = f.backend;
  o.client.endpoint = endpoint;
  o.client.model = model;
  o.client.api_key = f.api_key;
  if (o.client.api_key.empty()) {
    if (const char* env = std::getenv("OPENAI_API_KEY")) o.client.api_key = env;
  }
  o.client.headers = f.headers;
  o.client.extra_body = f.extra_body;
  o.client.ignore_eos = w.ignore_eos;
  o.client.insecure = f.insecure;
  if (f.usage == "continuous") {
    o.client.usage = client::UsageMode::kContinuous;
  } else if (f.usage == "final") {
    o.client.usage = client::UsageMode::kFinal;
  } else if (f.usage == "off") {
    o.client.usage = client::UsageMode::kOff;
  } else {
    return InvalidArgument("--usage must be continuous, final or off, got '" + f.usage + "'");
  }
  // Times up to about 11 days (0: none), so that their nanoseconds fit 64 bits (docs/limits.md).
  for (auto [flag, value, min] : {std::tuple{"--timeout", f.timeout_s, 0.0},
                                  std::tuple{"--connect-timeout", f.connect_timeout_s, 1e-3},
                                  std::tuple{"--first-token-timeout", f.first_token_timeout_s, 0.0},
                                  std::tuple{"--grace", f.grace_s, 0.0}})
    FRONTIER_RETURN_IF_ERROR(CheckRange(flag, value, min, 1e6));
  o.client.total_timeout = SecondsToNanos(f.timeout_s);
  o.client.connect_timeout = SecondsToNanos(f.connect_timeout_s);
  o.client.first_token_timeout = SecondsToNanos(f.first_token_timeout_s);
  o.run.grace = SecondsToNanos(f.grace_s);
  o.summary = w.summary;
  o.result_json = w.result_json;
  o.requests_jsonl = w.requests_jsonl;
  o.requested_settings = w.requested;
  o.effective_settings = w.effective;
  auto& eff = o.effective_settings;
  eff["base_url"] = f.base_url;
  eff["backend"] = f.backend;
  eff["endpoint"] = endpoint;
  eff["token_counts"] = client::TokenCountSource(dialect);
  eff["model"] = model;
  // --usage is OpenAI's stream option; the native dialects carry their own counts.
  eff["usage"] = client::BackendOf(dialect) == std::string_view("openai") ? f.usage : "native";
  eff["timeout_s"] = fmt::format("{}", f.timeout_s);
  eff["connect_timeout_s"] = fmt::format("{}", f.connect_timeout_s);
  eff["first_token_timeout_s"] = fmt::format("{}", f.first_token_timeout_s);
  for (const auto& h : f.headers) {  // names only: values may be secrets
    o.requested_settings["header:" + h.substr(0, h.find(':'))] = "(set)";
  }
  if (!f.extra_body.empty()) o.requested_settings["extra-body"] = f.extra_body;
  o.requested_settings.erase("api-key");
  nlohmann::json extra;
  extra["backend"] = dialect == client::Dialect::kChat ? "openai-chat" : f.backend;
  o.extra_result_fields = extra;
  eff["workers"] = std::to_string(o.workers);
  if (!f.workers.empty() && f.workers != "1") o.requested_settings["workers"] = f.workers;
  if (f.vocab_size) o.requested_settings["vocab_size"] = std::to_string(f.vocab_size);
  return o;
}

}  // namespace frontier::loadgen
