#include "client/native_dialects.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "client/json_read.h"

namespace frontier::client::internal {

using nlohmann::json;

bool IsNativeEngineDialect(Dialect d) { return d == Dialect::kSglang || d == Dialect::kTgi || d == Dialect::kTrtllm; }

namespace {

// A backend that takes text prompts only: InvalidArgument, saying why, for token ids.
Status TextPromptsOnly(std::span<const int32_t> token_ids, const char* backend, const char* why) {
  if (token_ids.empty()) return Status::Ok();
  return InvalidArgument(std::string("--backend ") + backend + " takes text prompts (" + why +
                         "): add --prompt-format text");
}

}  // namespace

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
      FRONTIER_RETURN_IF_ERROR(TextPromptsOnly(token_ids, "tgi", "TGI's /generate_stream has no token-id input"));
      j["inputs"] = text;
      // Greedy without a temperature: TGI refuses temperature 0. It has no
      // ignore_eos either.
      j["parameters"] = {{"max_new_tokens", max_tokens}, {"details", true}, {"do_sample", false}};
      break;
    }
    case Dialect::kTrtllm: {
      FRONTIER_RETURN_IF_ERROR(TextPromptsOnly(token_ids, "trtllm", "the ensemble's text_input"));
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

// A completion-token count (running or total), when `v` is one >= 0: true then.
bool ReadCompletionTokens(od::value v, Chunk* out) {
  int64_t n = -1;
  ReadCount(v, &n);
  if (n < 0) return false;
  out->completion_tokens = n;
  out->has_usage = true;
  return true;
}

// SGLang's meta_info: running counts and the finish reason.
simdjson::error_code ReadMetaInfo(od::value v, Chunk* out) {
  return ForEachField(v, [&](od::raw_json_string key, od::value fv) {
    if (key == "completion_tokens") {
      ReadCompletionTokens(fv, out);
    } else if (key == "prompt_tokens") {
      ReadCount(fv, &out->prompt_tokens);
    } else if (key == "finish_reason") {
      if (!IsNull(fv)) out->finish = true;
    }
  });
}

// TGI's token object: one generated token; its text unless special.
simdjson::error_code ReadTgiToken(od::value v, Chunk* out, std::string* text) {
  if (!IsType(v, od::json_type::object)) return simdjson::SUCCESS;  // null: no token
  out->content = true;
  if (text == nullptr) return simdjson::SUCCESS;
  bool special = false;
  std::string piece;
  auto e = ForEachField(v, [&](od::raw_json_string key, od::value fv) {
    if (key == "text") {
      AppendText(fv, &piece);
    } else if (key == "special") {
      if (fv.get_bool().get(special) != simdjson::SUCCESS) special = false;
    }
  });
  if (e) return e;
  if (!special) text->append(piece);
  return simdjson::SUCCESS;
}

// TGI's details: the finish reason and the totals (the last event only).
simdjson::error_code ReadTgiDetails(od::value v, Chunk* out) {
  if (!IsType(v, od::json_type::object)) return simdjson::SUCCESS;  // null: not the end
  out->finish = true;
  return ForEachField(v, [&](od::raw_json_string key, od::value fv) {
    if (key == "generated_tokens") {
      if (ReadCompletionTokens(fv, out)) out->usage_is_total = true;
    } else if (key == "prompt_tokens" || key == "input_length") {
      ReadCount(fv, &out->prompt_tokens);
    }
  });
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
        if (AppendNonEmptyText(v, text)) out->content = true;
      } else if (key == "model_name") {
        ReadModelName(v, want_model, &out->model);
      }
      break;
    default:
      break;
  }
  return simdjson::SUCCESS;
}

}  // namespace frontier::client::internal
