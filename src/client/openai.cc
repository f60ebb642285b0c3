#include "client/openai.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "client/json_read.h"
#include "client/native_dialects.h"

namespace frontier::client {

using nlohmann::json;

Status ValidateExtraBody(const std::string& extra_body) {
  if (extra_body.empty()) return Status::Ok();
  json j = json::parse(extra_body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return InvalidArgument("--extra-body must be a JSON object, e.g. '{\"top_p\": 0.9}'");
  return Status::Ok();
}

namespace {

// `j` with the --extra-body object merged on top, serialised.
Result<std::string> MergeExtra(const BodyOptions& o, json j) {
  if (!o.extra_body.empty()) {
    json extra = json::parse(o.extra_body, nullptr, false);
    if (extra.is_discarded() || !extra.is_object())
      return InvalidArgument("--extra-body must be a JSON object");
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// "prompt": the token ids when given, else the text.
void SetPrompt(json& j, std::span<const int32_t> token_ids, std::string_view text) {
  if (!token_ids.empty()) {
    j["prompt"] = std::vector<int32_t>(token_ids.begin(), token_ids.end());
  } else {
    j["prompt"] = text;
  }
}

}  // namespace

Result<std::string> BuildBody(const BodyOptions& o, std::span<const int32_t> token_ids,
                              std::string_view text, int32_t max_tokens) {
  if (internal::IsNativeEngineDialect(o.dialect)) return internal::BuildNativeBody(o, token_ids, text, max_tokens);
  json j = json::object();
  if (o.dialect == Dialect::kLlamaCpp) {
    SetPrompt(j, token_ids, text);
    j["n_predict"] = max_tokens;
    j["temperature"] = 0.0;
    j["stream"] = true;
    if (o.ignore_eos) j["ignore_eos"] = true;
    return MergeExtra(o, std::move(j));
  }
  j["model"] = o.model;
  if (o.dialect == Dialect::kChat) {
    if (!token_ids.empty())
      return InvalidArgument(
          "--endpoint /v1/chat/completions needs text prompts: add --prompt-format text");
    j["messages"] = json::array({{{"role", "user"}, {"content", text}}});
    // Both names: OpenAI's current field, and the one llama.cpp's server
    // (b4747) reads; without it that server generates to the end of its context.
    j["max_completion_tokens"] = max_tokens;
    j["max_tokens"] = max_tokens;
  } else {
    SetPrompt(j, token_ids, text);
    j["max_tokens"] = max_tokens;
  }
  j["temperature"] = 0.0;
  j["stream"] = true;
  if (o.usage != UsageMode::kOff) {
    j["stream_options"] = {{"include_usage", true}};
    if (o.usage == UsageMode::kContinuous) j["stream_options"]["continuous_usage_stats"] = true;
  }
  if (o.ignore_eos) j["ignore_eos"] = true;
  return MergeExtra(o, std::move(j));
}

struct ChunkReader::Impl {
  simdjson::ondemand::parser parser;
};

ChunkReader::ChunkReader() : impl_(std::make_unique<Impl>()) {}
ChunkReader::~ChunkReader() = default;

namespace {

namespace od = simdjson::ondemand;
using internal::AppendNonEmptyText;
using internal::AppendText;
using internal::ErrorText;
using internal::ReadModelName;
using internal::IsNull;
using internal::IsType;
using internal::NonEmptyString;

simdjson::error_code ReadUsage(od::value v, Chunk* out) {
  od::object usage;
  if (v.get_object().get(usage) != simdjson::SUCCESS) return simdjson::SUCCESS;  // null usage
  for (auto field : usage) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    int64_t n = 0;
    if (key == "prompt_tokens") {
      if (field.value().get_int64().get(n) == simdjson::SUCCESS) out->prompt_tokens = n;
    } else if (key == "completion_tokens") {
      if (field.value().get_int64().get(n) == simdjson::SUCCESS) {
        out->completion_tokens = n;
        out->has_usage = true;
      }
    }
  }
  return simdjson::SUCCESS;
}

// llama.cpp's "timings": {"prompt_n", "prompt_ms", "predicted_n", "predicted_ms", ...}.
simdjson::error_code ReadTimings(od::value v, Chunk* out) {
  od::object timings;
  if (v.get_object().get(timings) != simdjson::SUCCESS) return simdjson::SUCCESS;
  ServerTimings t;
  for (auto field : timings) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    double x = 0;
    if (field.value().get_double().get(x) != simdjson::SUCCESS || !(x >= 0)) continue;
    if (key == "prompt_n") {
      t.prompt_n = static_cast<int32_t>(std::min(x, 2147483647.0));
    } else if (key == "prompt_ms") {
      t.prompt_ms = x;
    } else if (key == "predicted_n") {
      t.predicted_n = static_cast<int32_t>(std::min(x, 2147483647.0));
    } else if (key == "predicted_ms") {
      t.predicted_ms = x;
    }
  }
  out->has_timings = t.given();
  if (out->has_timings) out->timings = t;
  return simdjson::SUCCESS;
}

simdjson::error_code ReadChoice(od::object choice, Dialect dialect, Chunk* out, std::string* text) {
  for (auto field : choice) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    od::value v;
    if (auto e = field.value().get(v)) return e;
    if (key == "finish_reason") {
      if (!IsNull(v)) out->finish = true;
    } else if (dialect == Dialect::kCompletions && key == "text") {
      if (AppendNonEmptyText(v, text)) out->content = true;
    } else if (dialect == Dialect::kChat && key == "delta") {
      od::object delta;
      if (v.get_object().get(delta) != simdjson::SUCCESS) continue;
      for (auto d : delta) {
        od::raw_json_string dk;
        if (auto e = d.key().get(dk)) return e;
        if (dk == "content" || dk == "reasoning_content" || dk == "reasoning") {
          od::value dv;
          if (d.value().get(dv) == simdjson::SUCCESS && NonEmptyString(dv)) {
            out->content = true;
            if (dk == "content") AppendText(dv, text);
          }
        }
      }
    }
  }
  return simdjson::SUCCESS;
}

// One top-level field of a llama.cpp native chunk: "content", "tokens",
// "stop", "tokens_predicted", "tokens_evaluated".
simdjson::error_code ReadLlamaCppField(od::raw_json_string key, od::value v, Chunk* out, std::string* text) {
  if (key == "content") {
    if (AppendNonEmptyText(v, text)) out->content = true;
  } else if (key == "tokens") {
    od::array tokens;
    if (v.get_array().get(tokens) == simdjson::SUCCESS) {
      for (auto t : tokens) {
        (void)t;
        out->content = true;
        break;
      }
    }
  } else if (key == "stop") {
    bool stop = false;
    if (v.get_bool().get(stop) == simdjson::SUCCESS && stop) out->finish = true;
  } else if (key == "tokens_predicted") {
    int64_t n = 0;
    if (v.get_int64().get(n) == simdjson::SUCCESS) {
      out->completion_tokens = n;
      out->has_usage = true;
    }
  } else if (key == "tokens_evaluated") {
    int64_t n = 0;
    if (v.get_int64().get(n) == simdjson::SUCCESS) out->prompt_tokens = n;
  }
  return simdjson::SUCCESS;
}

std::string Quote(std::string_view data) {
  return "'" + std::string(data.substr(0, 120)) + "'";
}

}  // namespace

bool ChunkReader::Read(std::string_view data, Dialect dialect, bool want_model, Chunk* out,
                       std::string* why, std::string* text) {
  *out = Chunk{};
  od::document doc;
  auto fail = [&](simdjson::error_code e) {
    *why = std::string("malformed JSON in a stream event (") + simdjson::error_message(e) + "): " + Quote(data);
    return false;
  };
  if (auto e = impl_->parser.iterate(data.data(), data.size(), data.size() + simdjson::SIMDJSON_PADDING).get(doc))
    return fail(e);
  od::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) {
    *why = "a stream event is JSON but not an object: " + Quote(data);
    return false;
  }
  bool object_is_error = false;
  std::string message;
  const bool native = internal::IsNativeEngineDialect(dialect);
  for (auto field : obj) {
    // Raw keys: compared in place, no unescaping copy (the keys read here never need escapes).
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return fail(e);
    od::value v;
    if (auto e = field.value().get(v)) return fail(e);
    if (native && !(key == "error")) {
      if (auto e = internal::ReadNativeField(dialect, key, v, want_model, out, text)) return fail(e);
    } else if (key == "choices") {
      od::array choices;
      if (v.get_array().get(choices) != simdjson::SUCCESS) continue;
      for (auto c : choices) {  // choices[0] only (n = 1)
        od::object choice;
        if (c.get_object().get(choice) == simdjson::SUCCESS) {
          if (auto e = ReadChoice(choice, dialect, out, text)) return fail(e);
        }
        break;
      }
    } else if (key == "usage") {
      if (auto e = ReadUsage(v, out)) return fail(e);
    } else if (key == "timings") {
      if (auto e = ReadTimings(v, out)) return fail(e);
    } else if (key == "model") {
      ReadModelName(v, want_model, &out->model);
    } else if (key == "error") {
      if (!IsNull(v)) {
        out->error = true;
        out->error_message = ErrorText(v);
      }
    } else if (key == "object") {
      std::string_view t;
      if (v.get_string().get(t) == simdjson::SUCCESS && t == "error") object_is_error = true;
    } else if (key == "message") {
      std::string_view m;
      if (v.get_string().get(m) == simdjson::SUCCESS) message = std::string(m);
    } else if (dialect == Dialect::kLlamaCpp) {
      if (auto e = ReadLlamaCppField(key, v, out, text)) return fail(e);
    }
  }
  if (object_is_error && !out->error) {
    out->error = true;
    out->error_message = message;
  }
  return true;
}

std::string ChunkReader::ErrorMessage(std::string_view payload) {
  simdjson::padded_string padded(payload);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc) == simdjson::SUCCESS) {
    od::object o;
    if (doc.get_object().get(o) == simdjson::SUCCESS) {
      for (auto f : o) {
        std::string_view k, s;
        if (f.unescaped_key().get(k) != simdjson::SUCCESS) break;
        if (k == "message" && f.value().get_string().get(s) == simdjson::SUCCESS) return std::string(s);
        if (k == "error") {
          od::value v;
          if (f.value().get(v) == simdjson::SUCCESS) return ErrorText(v);
        }
      }
    }
  }
  return std::string(payload);
}

}  // namespace frontier::client
