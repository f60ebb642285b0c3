#include "testing/native_wire.h"

#include <nlohmann/json.hpp>

namespace frontier::testing::internal {

using nlohmann::json;

NativeWire WireForPath(std::string_view path) {
  if (path == "/generate") return NativeWire::kSglang;
  if (path == "/generate_stream") return NativeWire::kTgi;
  if (path.rfind("/v2/models/", 0) == 0 && path.size() > 16 && path.substr(path.size() - 16) == "/generate_stream")
    return NativeWire::kTriton;
  return NativeWire::kNone;
}

int64_t NativePromptTokens(NativeWire w, const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  if (w == NativeWire::kSglang && j.contains("input_ids") && j["input_ids"].is_array())
    return static_cast<int64_t>(j["input_ids"].size());
  const char* key = w == NativeWire::kSglang ? "text" : w == NativeWire::kTgi ? "inputs" : "text_input";
  if (j.contains(key) && j[key].is_string())
    return static_cast<int64_t>(j[key].get_ref<const std::string&>().size() / 4 + 1);
  return 0;
}

std::string NativeEvent(NativeWire w, const WireEvent& e) {
  const int64_t reported = e.reported_total >= 0 ? e.reported_total : e.tokens_after;
  switch (w) {
    case NativeWire::kSglang: {
      std::string text;
      json ids = json::array();
      for (int64_t i = 0; i < e.tokens_after; ++i) {
        text += " tok";
        ids.push_back(1);
      }
      json j = {{"text", text}, {"output_ids", ids}};
      if (e.counts) {
        json finish = nullptr;
        if (e.last) finish = {{"type", "length"}, {"length", reported}};
        j["meta_info"] = {{"id", "scripted-rid"},         {"finish_reason", finish},
                          {"prompt_tokens", e.prompt_tokens}, {"completion_tokens", reported},
                          {"cached_tokens", 0},           {"e2e_latency", 0.01 * (e.event_index + 1)}};
      }
      return j.dump();
    }
    case NativeWire::kTgi: {
      json j = {{"index", e.event_index},
                {"token", {{"id", 1}, {"text", " tok"}, {"logprob", -0.25}, {"special", false}}},
                {"generated_text", nullptr},
                {"details", nullptr}};
      if (e.last) {
        std::string text;
        for (int64_t i = 0; i < e.tokens_after; ++i) text += " tok";
        j["generated_text"] = text;
        json details = {{"finish_reason", "length"}, {"seed", nullptr}};
        if (e.counts) details["generated_tokens"] = reported;
        j["details"] = std::move(details);
      }
      return j.dump();
    }
    case NativeWire::kTriton:
      return json{{"model_name", e.model}, {"model_version", "1"}, {"text_output", " tok"}}.dump();
    case NativeWire::kNone:
      break;
  }
  return "{}";
}

std::string_view NativeEnd(NativeWire w) { return w == NativeWire::kSglang ? "[DONE]" : ""; }

std::string NativeError(NativeWire w, std::string_view message) {
  switch (w) {
    case NativeWire::kSglang:
      return json{{"error", {{"message", message}}}}.dump();
    case NativeWire::kTgi:
      return json{{"error", "Request failed during generation: Server error: " + std::string(message)},
                  {"error_type", "generation"}}
          .dump();
    default:
      return json{{"error", message}}.dump();
  }
}

}  // namespace frontier::testing::internal
