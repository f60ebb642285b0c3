// json_read.h: internal to the client. Small simdjson On-Demand helpers the
// dialects' chunk readers share (openai.cc, native_dialects.cc): type tests
// that do not unescape, appending a string's text, the model's name, walking
// an object's fields, an error value's message.
//
// Thread safety: stateless functions over values of one parser (one thread).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace frontier::client::internal {

namespace od = simdjson::ondemand;

inline bool IsNull(od::value& v) {
  bool n = false;
  return v.is_null().get(n) == simdjson::SUCCESS && n;
}

inline bool IsType(od::value& v, od::json_type want) {
  od::json_type t;
  return v.type().get(t) == simdjson::SUCCESS && t == want;
}

// True for a non-empty JSON string (without unescaping it).
inline bool NonEmptyString(od::value v) {
  if (!IsType(v, od::json_type::string)) return false;
  return v.raw_json_token().size() > 2;  // the token keeps its quotes: "" is 2 bytes
}

// Appends string value `v` unescaped to `*text` (when text is set).
inline void AppendText(od::value v, std::string* text) {
  std::string_view s;
  if (text != nullptr && v.get_string().get(s) == simdjson::SUCCESS) text->append(s);
}

// Appends string value `v` unescaped to `*text` (when text is set) if it is a
// non-empty string; true when it was one (the event carried content).
inline bool AppendNonEmptyText(od::value v, std::string* text) {
  if (!NonEmptyString(v)) return false;
  AppendText(v, text);
  return true;
}

// Sets `*model` to string value `v` when wanted (the first chunk that names one).
inline void ReadModelName(od::value v, bool want_model, std::string* model) {
  std::string_view m;
  if (want_model && v.get_string().get(m) == simdjson::SUCCESS) *model = std::string(m);
}

// Calls f(key, value) for each field of object `v`, keys raw (compared in
// place, no unescaping); nothing when `v` is not an object (e.g. null).
// Returns the document's first error.
template <typename F>
simdjson::error_code ForEachField(od::value v, F&& f) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return simdjson::SUCCESS;
  for (auto field : obj) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    od::value fv;
    if (auto e = field.value().get(fv)) return e;
    f(key, fv);
  }
  return simdjson::SUCCESS;
}

// The message of an error value: its "message" string, a plain string, or its JSON.
inline std::string ErrorText(od::value v) {
  std::string_view s;
  if (IsType(v, od::json_type::string)) {
    if (v.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  }
  od::object o;
  if (v.get_object().get(o) == simdjson::SUCCESS) {
    std::string_view raw;
    const bool have_raw = o.raw_json().get(raw) == simdjson::SUCCESS;
    std::string whole = have_raw ? std::string(raw) : std::string();
    if (o.reset().error() == simdjson::SUCCESS) {
      for (auto f : o) {
        std::string_view k;
        if (f.unescaped_key().get(k) != simdjson::SUCCESS) break;
        if (k == "message" && f.value().get_string().get(s) == simdjson::SUCCESS) return std::string(s);
      }
    }
    return whole;
  }
  return std::string(v.raw_json_token());
}

}  // namespace frontier::client::internal
