#include "client/native_dialects.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "client/json_read.h"

namespace frontier::client::internal {

using nlohmann::json;

bool IsNativeEngineDialect(Dialect d) { return d == Dialect::kSglang || d == Dialect::kTgi || d == Dialect::kTrtllm; }

Result<std::string> BuildNativeBody(const BodyOptions& o, std::span<const int32_t> token_ids, std::string_view text,
                                    int32_t max_tokens) {
  json j = json::object();
  switch (o.dialect) {
    case Dialect::kSglang: {
      if (!token_ids.empty()) {
        j["input_ids"] = std::vector<int32_t>(token_ids.begin(), token_ids.end());
      } else {
        j["text"] = text;
      }
      json sp = {{"max_new_tokens", max_tokens}, {"temperature", 0.0}};
      if (o.ignore_eos) sp["ignore_eos"] = true;
      j["sampling_params"] = std::move(sp);
      j["stream"] = true;
      break;
    }
    case Dialect::kTgi: {
      if (!token_ids.empty())
        return InvalidArgument("--backend tgi takes text prompts (TGI's /generate_stream has no token-id input): "
                               "add --prompt-format text");
      j["inputs"] = text;
      // Greedy without a temperature: TGI refuses temperature 0. It has no
      // ignore_eos either.
      j["parameters"] = {{"max_new_tokens", max_tokens}, {"details", true}, {"do_sample", false}};
      break;
    }
    case Dialect::kTrtllm: {
      if (!token_ids.empty())
        return InvalidArgument("--backend trtllm takes text prompts (the ensemble's text_input): "
                               "add --prompt-format text");
      j["text_input"] = text;
      j["max_tokens"] = max_tokens;
      j["stream"] = true;
      // No ignore_eos input: a minimum length of the whole output has its effect.
      if (o.ignore_eos) j["min_length"] = max_tokens;
      break;
    }
    default:
      return InvalidArgument("not a native engine dialect");
  }
  if (!o.extra_body.empty()) {
    json extra = json::parse(o.extra_body, nullptr, false);
    if (extra.is_discarded() || !extra.is_object()) return InvalidArgument("--extra-body must be a JSON object");
    j.merge_patch(extra);
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

simdjson::error_code ReadCount(od::value v, int64_t* n) {
  int64_t x = 0;
  if (v.get_int64().get(x) == simdjson::SUCCESS) *n = x;
  return simdjson::SUCCESS;
}

// SGLang's meta_info: running counts and the finish reason.
simdjson::error_code ReadMetaInfo(od::value v, Chunk* out) {
  od::object meta;
  if (v.get_object().get(meta) != simdjson::SUCCESS) return simdjson::SUCCESS;
  for (auto field : meta) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    od::value fv;
    if (auto e = field.value().get(fv)) return e;
    if (key == "completion_tokens") {
      int64_t n = -1;
      ReadCount(fv, &n);
      if (n >= 0) {
        out->completion_tokens = n;
        out->has_usage = true;
      }
    } else if (key == "prompt_tokens") {
      ReadCount(fv, &out->prompt_tokens);
    } else if (key == "finish_reason") {
      if (!IsNull(fv)) out->finish = true;
    }
  }
  return simdjson::SUCCESS;
}

// TGI's token object: one generated token; its text unless special.
simdjson::error_code ReadTgiToken(od::value v, Chunk* out, std::string* text) {
  od::object token;
  if (v.get_object().get(token) != simdjson::SUCCESS) return simdjson::SUCCESS;  // null: no token
  out->content = true;
  if (text == nullptr) return simdjson::SUCCESS;
  bool special = false;
  std::string piece;
  for (auto field : token) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    od::value fv;
    if (auto e = field.value().get(fv)) return e;
    if (key == "text") {
      AppendText(fv, &piece);
    } else if (key == "special") {
      if (fv.get_bool().get(special) != simdjson::SUCCESS) special = false;
    }
  }
  if (!special) text->append(piece);
  return simdjson::SUCCESS;
}

// TGI's details: the finish reason and the totals (the last event only).
simdjson::error_code ReadTgiDetails(od::value v, Chunk* out) {
  od::object details;
  if (v.get_object().get(details) != simdjson::SUCCESS) return simdjson::SUCCESS;  // null: not the end
  out->finish = true;
  for (auto field : details) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    od::value fv;
    if (auto e = field.value().get(fv)) return e;
    if (key == "generated_tokens") {
      int64_t n = -1;
      ReadCount(fv, &n);
      if (n >= 0) {
        out->completion_tokens = n;
        out->has_usage = true;
        out->usage_is_total = true;
      }
    } else if (key == "prompt_tokens" || key == "input_length") {
      ReadCount(fv, &out->prompt_tokens);
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

simdjson::error_code ReadNativeField(Dialect d, od::raw_json_string key, od::value v, bool want_model, Chunk* out,
                                     std::string* text) {
  switch (d) {
    case Dialect::kSglang:
      if (key == "text") {
        out->cumulative = true;
        if (IsType(v, od::json_type::string)) {
          out->cumulative_text_bytes = static_cast<int64_t>(v.raw_json_token().size());
          std::string_view s;
          if (text != nullptr && v.get_string().get(s) == simdjson::SUCCESS) text->assign(s);
        }
      } else if (key == "meta_info") {
        out->cumulative = true;
        return ReadMetaInfo(v, out);
      }
      break;
    case Dialect::kTgi:
      if (key == "token") {
        return ReadTgiToken(v, out, text);
      } else if (key == "details") {
        return ReadTgiDetails(v, out);
      } else if (key == "error_type") {
        std::string_view s;
        if (v.get_string().get(s) == simdjson::SUCCESS) out->error_type = std::string(s);
      }
      break;
    case Dialect::kTrtllm:
      if (key == "text_output") {
        if (NonEmptyString(v)) {
          out->content = true;
          AppendText(v, text);
        }
      } else if (key == "model_name") {
        std::string_view m;
        if (want_model && v.get_string().get(m) == simdjson::SUCCESS) out->model = std::string(m);
      }
      break;
    default:
      break;
  }
  return simdjson::SUCCESS;
}

}  // namespace frontier::client::internal
