// target_request.cc: the target flags' table and their resolution into
// benchmark options (target_request.h).
#include "loadgen/target_request.h"

#include <charconv>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "client/backend.h"
#include "client/openai.h"
#include "core/cpus.h"
#include "core/parse.h"
#include "loadgen/worker_pool.h"

namespace frontier::loadgen {
namespace {

// Every flag in --help's order, with its key under a plan's server system
// and its bounds. Times are bounded to about 11 days (0: none, where allowed),
// so that their nanoseconds fit 64 bits (docs/limits.md).
const TargetField kFields[] = {
    {{"--base-url", &TargetRequest::base_url, "Server URL, http:// or https:// [http://127.0.0.1:8000]", "Target"}, ""},
    {{"--backend", &TargetRequest::backend, "API dialect: openai (OpenAI-compatible, any server), sglang (SGLang's native /generate), tgi (TGI's /generate_stream), trtllm (Triton's generate_stream, TensorRT-LLM) or llamacpp (llama.cpp's native /completion) [openai]", "Target"}, ""},
    {{"--endpoint", &TargetRequest::endpoint, "openai: /v1/completions or /v1/chat/completions; sglang: /generate; tgi: /generate_stream; trtllm: /v2/models/{model}[/versions/{v}]/generate_stream; llamacpp: /completion [the backend's first; trtllm's names --model]", "Target"}, ""},
    {{"--model", &TargetRequest::model, "Model name sent in each request (required)", "Target"}, ""},
    {{"--api-key", &TargetRequest::api_key, "Bearer token [$OPENAI_API_KEY]", "Target"}, ""},
    {{"--header", &TargetRequest::headers, "Extra request header 'Name: value' (repeatable)", "Target"}, ""},
    {{"--extra-body", &TargetRequest::extra_body, "JSON object merged into every request body", "Target"}, "extra_body"},
    {{"--usage", &TargetRequest::usage, "openai: token counts from the server: continuous (usage in every chunk), final, off; the native backends read their own counts [continuous]", "Target"}, "usage"},
    {{"--insecure", &TargetRequest::insecure, "https: do not verify the server's certificate", "Target"}, "insecure"},
    {{"--timeout", &TargetRequest::timeout_s, "Total time limit per request, seconds (0 = none) [600]", "Target"}, "timeout_s", 0, 1e6},
    {{"--connect-timeout", &TargetRequest::connect_timeout_s, "Connect time limit, seconds [10]", "Target"}, "connect_timeout_s", 1e-3, 1e6},
    {{"--first-token-timeout", &TargetRequest::first_token_timeout_s, "Time limit to the first token, seconds (0 = none) [0]", "Target"}, "first_token_timeout_s", 0, 1e6},
    {{"--grace", &TargetRequest::grace_s, "After Ctrl-C, seconds in-flight requests may finish [5]", "Output"}, "grace_s", 0, 1e6},
    {{"--workers", &TargetRequest::workers, "Event loops on their own threads, each owning its streams: N or auto (one per CPU) [1]", "Load"}, "workers"},
    {{"--vocab-size", &TargetRequest::vocab_size, "Token-id prompts: ids drawn below this, when the server's /v1/models gives no vocabulary size (llama.cpp gives meta.n_vocab) [32000]", "Workload"}, "vocab_size", 2, 2147483647.0},
};

// The flag column of kFields.
const std::vector<FlagRow<TargetRequest>>& FlagColumn() {
  static const std::vector<FlagRow<TargetRequest>> rows = [] {
    std::vector<FlagRow<TargetRequest>> out;
    for (const TargetField& f : kFields) out.push_back(f.flag);
    return out;
  }();
  return rows;
}

const TargetField& FieldOf(std::string_view flag) {
  for (const TargetField& f : kFields)
    if (flag == f.flag.name) return f;
  std::abort();  // a flag of this file's own table
}

// core's range check (CheckRange: "must be a number in [0, 1000000], got
// -1", an integer's words for an integer) within the field's bounds.
template <typename T>
std::optional<TargetProblem> OutOfRange(std::string_view flag, T value) {
  const TargetField& f = FieldOf(flag);
  const Status st = CheckRange(f.flag.name, value, static_cast<T>(f.min), static_cast<T>(f.max));
  if (st.ok()) return std::nullopt;
  return TargetProblem{f.flag.name, st.message().substr(flag.size() + 1)};
}

// The endpoint a request goes to (the backend's default when none is given)
// and the dialect spoken there.
Result<std::pair<std::string, client::Dialect>> EndpointAndDialect(const TargetRequest& f, const std::string& model) {
  std::string endpoint = f.endpoint;
  if (endpoint.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(endpoint, client::DefaultEndpoint(f.backend, model));
  }
  FRONTIER_ASSIGN_OR_RETURN(client::Dialect dialect, client::ResolveDialect(f.backend, endpoint));
  return std::pair{endpoint, dialect};
}

}  // namespace

std::span<const TargetField> TargetFieldTable() { return kFields; }

std::span<const FlagRow<TargetRequest>> TargetFlagRows() { return FlagColumn(); }

std::optional<TargetProblem> CheckTargetRequest(const TargetRequest& f) {
  if (f.workers != "auto") {
    int n = 0;
    auto [end, ec] = std::from_chars(f.workers.data(), f.workers.data() + f.workers.size(), n);
    if (ec != std::errc() || end != f.workers.data() + f.workers.size() || n < 1 || n > 1024)
      return TargetProblem{"--workers", "must be auto or an integer in [1, 1024], got '" + f.workers + "'"};
  }
  if (f.vocab_size != 0)
    if (auto p = OutOfRange("--vocab-size", f.vocab_size)) return p;
  if (f.usage != "continuous" && f.usage != "final" && f.usage != "off")
    return TargetProblem{"--usage", "must be continuous, final or off, got '" + f.usage + "'"};
  if (Status st = client::ValidateExtraBody(f.extra_body); !st.ok())
    return TargetProblem{"--extra-body", "must be a JSON object, e.g. '{\"top_p\": 0.9}'"};
  for (auto [flag, value] : {std::pair{"--timeout", f.timeout_s}, std::pair{"--connect-timeout", f.connect_timeout_s},
                             std::pair{"--first-token-timeout", f.first_token_timeout_s},
                             std::pair{"--grace", f.grace_s}})
    if (auto p = OutOfRange(flag, value)) return p;
  return std::nullopt;
}

Result<client::Dialect> ApplyTarget(const TargetRequest& f, const std::string& model, bool ignore_eos,
                                    BenchOptions* o) {
  if (std::optional<TargetProblem> bad = CheckTargetRequest(f))
    return InvalidArgument(std::string(bad->flag) + " " + bad->message);
  FRONTIER_ASSIGN_OR_RETURN(const auto endpoint_dialect, EndpointAndDialect(f, model));
  const auto& [endpoint, dialect] = endpoint_dialect;
  o->workers = f.workers == "auto" ? static_cast<int>(UsableCpus()) : std::stoi(f.workers);  // the CPUs it may run on
  o->client.base_url = f.base_url;
  o->client.backend = f.backend;
  o->client.endpoint = endpoint;
  o->client.model = model;
  o->client.api_key = f.api_key;
  if (o->client.api_key.empty()) {
    if (const char* env = std::getenv("OPENAI_API_KEY")) o->client.api_key = env;
  }
  o->client.headers = f.headers;
  o->client.extra_body = f.extra_body;
  o->client.ignore_eos = ignore_eos;
  o->client.insecure = f.insecure;
  o->client.usage = f.usage == "final" ? client::UsageMode::kFinal
                    : f.usage == "off" ? client::UsageMode::kOff
                                       : client::UsageMode::kContinuous;
  o->client.total_timeout = SecondsToNanos(f.timeout_s);
  o->client.connect_timeout = SecondsToNanos(f.connect_timeout_s);
  o->client.first_token_timeout = SecondsToNanos(f.first_token_timeout_s);
  o->run.grace = SecondsToNanos(f.grace_s);
  auto& eff = o->effective_settings;
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
    o->requested_settings["header:" + h.substr(0, h.find(':'))] = "(set)";
  }
  if (!f.extra_body.empty()) o->requested_settings["extra-body"] = f.extra_body;
  o->requested_settings.erase("api-key");
  o->extra_result_fields["backend"] = dialect == client::Dialect::kChat ? "openai-chat" : f.backend;
  eff["workers"] = std::to_string(o->workers);
  if (!f.workers.empty() && f.workers != "1") o->requested_settings["workers"] = f.workers;
  if (f.vocab_size) o->requested_settings["vocab_size"] = std::to_string(f.vocab_size);
  return dialect;
}

Result<BenchOptions> ResolveTarget(const TargetRequest& f, const std::string& model, const ResolvedWorkload& w) {
  if (model.empty()) return InvalidArgument("--model is required (the model name the server serves)");
  BenchOptions o;
  o.summary = w.summary;
  o.result_json = w.result_json;
  o.requests_jsonl = w.requests_jsonl;
  o.requested_settings = w.requested;
  o.effective_settings = w.effective;
  FRONTIER_ASSIGN_OR_RETURN(const client::Dialect dialect, ApplyTarget(f, model, w.ignore_eos, &o));
  if (client::NeedsTextPrompts(dialect) && w.dataset.kind == workload::DatasetKind::kRandom &&
      w.dataset.random.format == workload::PromptFormat::kTokenIds) {
    if (dialect == client::Dialect::kChat)
      return InvalidArgument("--endpoint /v1/chat/completions needs text prompts: add --prompt-format text");
    return InvalidArgument("--backend " + f.backend + " takes text prompts (" +
                           (dialect == client::Dialect::kTgi ? "TGI's inputs" : "the Triton model's text_input") +
                           " is text, not token ids): add --prompt-format text");
  }
  return o;
}

}  // namespace frontier::loadgen
