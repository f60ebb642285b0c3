#include "serve/openai.h"

#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/parse.h"
#include "serve/synthetic.h"

namespace frontier::serve {
namespace {

using json = nlohmann::json;

ApiError Bad(std::string message, std::string param) {
  ApiError e;
  e.status = 400;
  e.message = std::move(message);
  e.param = std::move(param);
  return e;
}

// What a value is, for messages: its type, or a number itself (1e+30 is a
// number past the 64-bit integers, 1.5 one with a fraction).
std::string TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return v.dump();
    default: return "an integer";
  }
}

// Reads an optional boolean field; null counts as absent.
std::optional<ApiError> GetBool(const json& obj, const char* name, bool& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean())
    return Bad(std::string("`") + name + "` must be a boolean, got " + TypeName(*it), name);
  out = it->get<bool>();
  return std::nullopt;
}

// No OpenAI request nests deeper (messages[].content[].text is 4 levels).
constexpr int64_t kMaxRequestDepth = 64;

// Token counts fit the engine's 32-bit lengths, so sums of a few of them
// (prompt + max_tokens) cannot overflow.
constexpr int64_t kMaxTokenCount = std::numeric_limits<int32_t>::max();

// An optional integer field in [min, max]; null counts as absent.
std::optional<ApiError> GetInt(const json& obj, const char* name, int64_t min, int64_t max,
                               std::optional<int64_t>& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  const std::string allowed = std::string("`") + name + "` must be an integer in [" + std::to_string(min) + ", " +
                              std::to_string(max) + "], got ";
  if (!it->is_number_integer()) return Bad(allowed + TypeName(*it), name);
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(max))
    return Bad(allowed + std::to_string(it->get<uint64_t>()), name);
  const int64_t v = it->get<int64_t>();
  if (v < min || v > max) return Bad(allowed + std::to_string(v), name);
  out = v;
  return std::nullopt;
}

// Token ids: exact count; hashed so the same ids give the same output.
std::optional<ApiError> ReadTokenIds(const json& arr, GenerationRequest& out) {
  std::string bytes;
  bytes.reserve(arr.size() * 4);
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& t = arr[i];
    if (!t.is_number_integer() || (!t.is_number_unsigned() && t.get<int64_t>() < 0))
      return Bad("`prompt` token ids must be integers in [0, 18446744073709551615], got " +
                     (t.is_number() ? t.dump() : TypeName(t)) + " at index " + std::to_string(i),
                 "prompt");
    const auto v = t.get<uint64_t>();
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(v));
    out.prompt_ids.push_back(static_cast<int32_t>(v & 0x7fffffff));
  }
  out.prompt_tokens = static_cast<int64_t>(arr.size());
  out.prompt_hash = HashBytes(bytes, 1);
  return std::nullopt;
}

std::optional<ApiError> ReadPrompt(const json& body, GenerationRequest& out) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null())
    return Bad("`prompt` is required: a string or a list of token ids", "prompt");
  const json* p = &*it;
  if (p->is_array() && !p->empty() && (p->front().is_string() || p->front().is_array())) {
    if (p->size() != 1)
      return Bad("`prompt` holds " + std::to_string(p->size()) +
                     " prompts; frontier serve takes one prompt per request",
                 "prompt");
    p = &p->front();
  }
  if (p->is_string()) {
    const auto& s = p->get_ref<const std::string&>();
    out.prompt_tokens = CountTextTokens(s);
    out.prompt_hash = HashBytes(s, 2);
    AppendTextTokenIds(s, out.prompt_ids);
  } else if (p->is_array()) {
    if (auto e = ReadTokenIds(*p, out)) return e;
  } else {
    return Bad(std::string("`prompt` must be a string or a list of token ids, got ") + TypeName(*p),
               "prompt");
  }
  if (out.prompt_tokens < 1) return Bad("`prompt` is empty: it must hold at least one token", "prompt");
  return std::nullopt;
}

std::optional<ApiError> ReadMessages(const json& body, GenerationRequest& out) {
  auto it = body.find("messages");
  if (it == body.end() || it->is_null())
    return Bad("`messages` is required: a list of {role, content} objects", "messages");
  if (!it->is_array() || it->empty())
    return Bad("`messages` must be a non-empty list of {role, content} objects", "messages");
  std::string all;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return Bad("`" + where + "` must be an object", where);
    auto role = m.find("role");
    if (role == m.end() || !role->is_string())
      return Bad("`" + where + ".role` is required and must be a string", where + ".role");
    auto content = m.find("content");
    if (content == m.end() || content->is_null()) continue;  // e.g. an assistant tool call
    if (content->is_string()) {
      const auto& s = content->get_ref<const std::string&>();
      out.prompt_tokens += CountTextTokens(s);
      AppendTextTokenIds(s, out.prompt_ids);
      all += s;
      all += '\n';
    } else if (content->is_array()) {
      for (const auto& part : *content) {
        auto type = part.is_object() ? part.find("type") : part.end();
        if (!part.is_object() || type == part.end() || *type != "text" || !part.contains("text") ||
            !part["text"].is_string())
          return Bad("`" + where + ".content` parts must be {\"type\": \"text\", \"text\": <string>}",
                     where + ".content");
        const auto& s = part["text"].get_ref<const std::string&>();
        out.prompt_tokens += CountTextTokens(s);
        AppendTextTokenIds(s, out.prompt_ids);
        all += s;
        all += '\n';
      }
    } else {
      return Bad("`" + where + ".content` must be a string or a list of text parts, got " +
                     TypeName(*content),
                 where + ".content");
    }
  }
  if (out.prompt_tokens < 1) return Bad("`messages` hold no text: at least one token is needed", "messages");
  out.prompt_hash = HashBytes(all, 3);
  return std::nullopt;
}

std::optional<ApiError> ReadStop(const json& body, GenerationRequest& out) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return std::nullopt;
  auto add = [&](const json& s) -> std::optional<ApiError> {
    if (!s.is_string() || s.get_ref<const std::string&>().empty())
      return Bad("`stop` must be a non-empty string or a list of non-empty strings", "stop");
    out.stop.push_back(s.get<std::string>());
    return std::nullopt;
  };
  if (it->is_array()) {
    for (const auto& s : *it)
      if (auto e = add(s)) return e;
    return std::nullopt;
  }
  return add(*it);
}

}  // namespace

std::optional<ApiError> ParseGenerationRequest(ApiKind kind, std::string_view body,
                                               GenerationRequest& out) {
  out = GenerationRequest{};
  out.kind = kind;
  if (JsonNestingDepth(body) > kMaxRequestDepth)
    return Bad("the request body is nested deeper than " + std::to_string(kMaxRequestDepth) + " levels", "");
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("the request body is not valid JSON", "");
  if (!j.is_object()) return Bad("the request body must be a JSON object", "");

  if (auto it = j.find("model"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Bad(std::string("`model` must be a string, got ") + TypeName(*it), "model");
    out.model = it->get<std::string>();
  }
  if (auto e = kind == ApiKind::kChat ? ReadMessages(j, out) : ReadPrompt(j, out)) return e;
  if (auto e = GetBool(j, "stream", out.stream)) return e;
  if (auto e = GetBool(j, "ignore_eos", out.ignore_eos)) return e;
  if (auto it = j.find("stream_options"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Bad("`stream_options` must be an object", "stream_options");
    if (!out.stream) return Bad("`stream_options` can only be set when `stream` is true", "stream_options");
    if (auto e = GetBool(*it, "include_usage", out.include_usage)) return e;
    if (auto e = GetBool(*it, "continuous_usage_stats", out.continuous_usage)) return e;
  }
  std::optional<int64_t> max_tokens, max_completion_tokens, min_tokens, n;
  if (auto e = GetInt(j, "max_tokens", 1, kMaxTokenCount, max_tokens)) return e;
  if (auto e = GetInt(j, "max_completion_tokens", 1, kMaxTokenCount, max_completion_tokens)) return e;
  out.max_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;
  if (auto e = GetInt(j, "min_tokens", 0, kMaxTokenCount, min_tokens)) return e;
  out.min_tokens = min_tokens.value_or(0);
  if (out.max_tokens && out.min_tokens > *out.max_tokens)
    return Bad("`min_tokens` (" + std::to_string(out.min_tokens) + ") must not exceed `max_tokens` (" +
                   std::to_string(*out.max_tokens) + ")",
               "min_tokens");
  if (auto e = GetInt(j, "n", 1, std::numeric_limits<int64_t>::max(), n)) return e;
  if (n && *n != 1) return Bad("`n` must be 1: frontier serve returns one choice per request", "n");
  if (auto it = j.find("seed"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer()) return Bad(std::string("`seed` must be an integer, got ") + TypeName(*it), "seed");
    out.seed = it->is_number_unsigned() ? static_cast<int64_t>(it->get<uint64_t>()) : it->get<int64_t>();
  }
  if (auto e = ReadStop(j, out)) return e;
  return std::nullopt;
}

std::string ErrorJson(const ApiError& e) {
  json err = {{"message", e.message}, {"type", e.type}};
  err["param"] = e.param.empty() ? json(nullptr) : json(e.param);
  err["code"] = e.code.empty() ? json(e.status) : json(e.code);
  // Messages can quote client bytes (a path, a model name) that are not UTF-8.
  return json{{"error", err}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

void AppendJsonEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
}

std::string ResponseHead(ApiKind kind, bool stream, std::string_view id, int64_t created,
                         std::string_view model) {
  const char* object = kind == ApiKind::kChat ? (stream ? "chat.completion.chunk" : "chat.completion")
                                              : "text_completion";
  std::string h = "{\"id\":\"";
  AppendJsonEscaped(h, id);
  h += "\",\"object\":\"";
  h += object;
  h += "\",\"created\":";
  h += std::to_string(created);
  h += ",\"model\":\"";
  AppendJsonEscaped(h, model);
  h += '"';
  return h;
}

namespace {

void AppendUsage(std::string& out, const Usage& u) {
  out += "\"usage\":{\"prompt_tokens\":";
  out += std::to_string(u.prompt_tokens);
  out += ",\"completion_tokens\":";
  out += std::to_string(u.completion_tokens);
  out += ",\"total_tokens\":";
  out += std::to_string(u.prompt_tokens + u.completion_tokens);
  out += '}';
}

void AppendFinish(std::string& out, const char* finish_reason) {
  out += ",\"logprobs\":null,\"finish_reason\":";
  if (finish_reason) {
    out += '"';
    out += finish_reason;
    out += '"';
  } else {
    out += "null";
  }
}

}  // namespace

void AppendContentEvent(std::string& out, ApiKind kind, std::string_view head, std::string_view delta,
                        const char* finish_reason, const Usage* usage) {
  out += "data: ";
  out += head;
  out += kind == ApiKind::kChat ? ",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                                : ",\"choices\":[{\"index\":0,\"text\":\"";
  AppendJsonEscaped(out, delta);
  out += kind == ApiKind::kChat ? "\"}" : "\"";
  AppendFinish(out, finish_reason);
  if (kind == ApiKind::kCompletions) out += ",\"stop_reason\":null";
  out += "}]";
  if (usage) {
    out += ',';
    AppendUsage(out, *usage);
  }
  out += "}\n\n";
}

void AppendRoleEvent(std::string& out, std::string_view head, const Usage* usage) {
  out += "data: ";
  out += head;
  out += ",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}";
  AppendFinish(out, nullptr);
  out += "}]";
  if (usage) {
    out += ',';
    AppendUsage(out, *usage);
  }
  out += "}\n\n";
}

void AppendUsageEvent(std::string& out, std::string_view head, const Usage& usage) {
  out += "data: ";
  out += head;
  out += ",\"choices\":[],";
  AppendUsage(out, usage);
  out += "}\n\n";
}

std::string FinalBody(ApiKind kind, std::string_view head, std::string_view text,
                      const char* finish_reason, const Usage& usage) {
  std::string out;
  out.reserve(head.size() + text.size() + 200);
  out += head;
  if (kind == ApiKind::kChat) {
    out += ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"";
    AppendJsonEscaped(out, text);
    out += "\"}";
  } else {
    out += ",\"choices\":[{\"index\":0,\"text\":\"";
    AppendJsonEscaped(out, text);
    out += '"';
  }
  AppendFinish(out, finish_reason);
  out += "}],";
  AppendUsage(out, usage);
  out += '}';
  return out;
}

std::string ModelsJson(std::string_view model, int64_t created, int64_t max_model_len) {
  json m = {{"id", std::string(model)},
            {"object", "model"},
            {"created", created},
            {"owned_by", "frontier"},
            {"root", std::string(model)},
            {"max_model_len", max_model_len}};
  return json{{"object", "list"}, {"data", json::array({m})}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace frontier::serve
