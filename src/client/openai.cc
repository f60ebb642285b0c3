#include "client/openai.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace frontier::client {

using nlohmann::json;

Result<Dialect> DialectForEndpoint(std::string_view endpoint) {
  if (endpoint == "/v1/completions") return Dialect::kCompletions;
  if (endpoint == "/v1/chat/completions") return Dialect::kChat;
  return InvalidArgument("--endpoint must be /v1/completions or /v1/chat/completions, got '" +
                         std::string(endpoint) + "'");
}

Status ValidateExtraBody(const std::string& extra_body) {
  if (extra_body.empty()) return Status::Ok();
  json j = json::parse(extra_body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return InvalidArgument("--extra-body must be a JSON object, e.g. '{\"top_p\": 0.9}'");
  return Status::Ok();
}

Result<std::string> BuildBody(const BodyOptions& o, std::span<const int32_t> token_ids,
                              std::string_view text, int32_t max_tokens) {
  json j = json::object();
  j["model"] = o.model;
  if (o.dialect == Dialect::kChat) {
    if (!token_ids.empty())
      return InvalidArgument(
          "--endpoint /v1/chat/completions needs text prompts: add --prompt-format text");
    j["messages"] = json::array({{{"role", "user"}, {"content", text}}});
    j["max_completion_tokens"] = max_tokens;
  } else {
    if (!token_ids.empty()) {
      j["prompt"] = std::vector<int32_t>(token_ids.begin(), token_ids.end());
    } else {
      j["prompt"] = text;
    }
    j["max_tokens"] = max_tokens;
  }
  j["temperature"] = 0.0;
  j["stream"] = true;
  if (o.usage != UsageMode::kOff) {
    j["stream_options"] = {{"include_usage", true}};
    if (o.usage == UsageMode::kContinuous) j["stream_options"]["continuous_usage_stats"] = true;
  }
  if (o.ignore_eos) j["ignore_eos"] = true;
  if (!o.extra_body.empty()) {
    json extra = json::parse(o.extra_body, nullptr, false);
    if (extra.is_discarded() || !extra.is_object())
      return InvalidArgument("--extra-body must be a JSON object");
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The DOM front end dispatches at run time to the best kernel this CPU has
// (the On-Demand front end would be fixed at compile time to the generic
// kernel without -march flags), and it validates the whole chunk.
struct ChunkReader::Impl {
  simdjson::dom::parser parser;
};

ChunkReader::ChunkReader() : impl_(std::make_unique<Impl>()) {}
ChunkReader::~ChunkReader() = default;

namespace {

namespace dom = simdjson::dom;

bool NonEmptyString(dom::element v) {
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return false;
  return !s.empty();
}

void ReadUsage(dom::element v, Chunk* out) {
  dom::object usage;
  if (v.get_object().get(usage) != simdjson::SUCCESS) return;  // null usage
  int64_t n = 0;
  if (usage["prompt_tokens"].get_int64().get(n) == simdjson::SUCCESS) out->prompt_tokens = n;
  if (usage["completion_tokens"].get_int64().get(n) == simdjson::SUCCESS) {
    out->completion_tokens = n;
    out->has_usage = true;
  }
}

void ReadChoice(dom::object choice, Dialect dialect, Chunk* out) {
  dom::element finish;
  if (choice["finish_reason"].get(finish) == simdjson::SUCCESS && !finish.is_null()) out->finish = true;
  if (dialect == Dialect::kCompletions) {
    dom::element text;
    if (choice["text"].get(text) == simdjson::SUCCESS && NonEmptyString(text)) out->content = true;
    return;
  }
  dom::object delta;
  if (choice["delta"].get_object().get(delta) != simdjson::SUCCESS) return;
  for (const char* key : {"content", "reasoning_content", "reasoning"}) {
    dom::element v;
    if (delta[key].get(v) == simdjson::SUCCESS && NonEmptyString(v)) {
      out->content = true;
      return;
    }
  }
}

}  // namespace

bool ChunkReader::Read(std::string& data, Dialect dialect, bool want_model, Chunk* out,
                       std::string* why) {
  *out = Chunk{};
  const size_t len = data.size();
  data.reserve(len + simdjson::SIMDJSON_PADDING);
  dom::element doc;
  if (auto e = impl_->parser.parse(data.data(), len, /*realloc_if_needed=*/false).get(doc)) {
    *why = std::string("malformed JSON in a stream event (") + simdjson::error_message(e) +
           "): '" + data.substr(0, 120) + "'";
    return false;
  }
  dom::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) {
    *why = "a stream event is JSON but not an object: '" + data.substr(0, 120) + "'";
    return false;
  }
  dom::array choices;
  if (obj["choices"].get_array().get(choices) == simdjson::SUCCESS) {
    for (dom::element c : choices) {
      dom::object choice;
      if (c.get_object().get(choice) == simdjson::SUCCESS) ReadChoice(choice, dialect, out);
      break;  // choices[0] only (n = 1)
    }
  }
  dom::element usage;
  if (obj["usage"].get(usage) == simdjson::SUCCESS) ReadUsage(usage, out);
  if (want_model) {
    std::string_view m;
    if (obj["model"].get_string().get(m) == simdjson::SUCCESS) out->model = std::string(m);
  }
  dom::element err;
  if (obj["error"].get(err) == simdjson::SUCCESS && !err.is_null()) {
    out->error = true;
    out->error_message = simdjson::minify(err);
  }
  std::string_view object_type;
  if (obj["object"].get_string().get(object_type) == simdjson::SUCCESS && object_type == "error") {
    out->error = true;
    std::string_view m;
    if (obj["message"].get_string().get(m) == simdjson::SUCCESS) out->error_message = std::string(m);
  }
  return true;
}

}  // namespace frontier::client
