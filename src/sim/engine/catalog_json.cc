#include "sim/engine/catalog_json.h"

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/parse.h"

namespace frontier::sim::catalog {

Result<nlohmann::json> ParseJson(const std::string& text, const std::string& origin) {
  if (JsonNestingDepth(text) > kMaxJsonDepth)
    return InvalidArgument(origin + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(origin + ": not valid JSON");
  return j;
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, kMaxCatalogBytes, "model configs and catalog files");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return NotFound("cannot open " + path);
    return text.status();
  }
  return ParseJson(*text, path);
}

const nlohmann::json* Value(const nlohmann::json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  if (it->is_object()) {
    auto v = it->find("value");
    if (v == it->end() || v->is_null()) return nullptr;
    return &*v;
  }
  return &*it;
}

Result<double> Number(const nlohmann::json& obj, const std::string& key, const std::string& origin) {
  const nlohmann::json* v = Value(obj, key);
  if (v == nullptr) return InvalidArgument(origin + ": missing field '" + key + "'");
  if (!v->is_number())
    return InvalidArgument(origin + ": field '" + key + "' must be a number, got " + v->dump());
  return v->get<double>();
}

Result<double> NumberOr(const nlohmann::json& obj, const std::string& key, double fallback,
                        const std::string& origin) {
  if (Value(obj, key) == nullptr) return fallback;
  return Number(obj, key, origin);
}

Result<double> NumberIn(const nlohmann::json& obj, const std::string& key, double min, double max,
                        const std::string& origin) {
  FRONTIER_ASSIGN_OR_RETURN(const double v, Number(obj, key, origin));
  Status in = CheckRange("field '" + key + "'", v, min, max);
  if (!in.ok()) return in.WithContext(origin);
  return v;
}

Result<double> NumberOrIn(const nlohmann::json& obj, const std::string& key, double fallback, double min,
                          double max, const std::string& origin) {
  if (Value(obj, key) == nullptr) return fallback;
  return NumberIn(obj, key, min, max, origin);
}

Result<std::string> String(const nlohmann::json& obj, const std::string& key,
                           const std::string& origin) {
  const nlohmann::json* v = Value(obj, key);
  if (v == nullptr) return InvalidArgument(origin + ": missing field '" + key + "'");
  if (!v->is_string())
    return InvalidArgument(origin + ": field '" + key + "' must be a string, got " + v->dump());
  return v->get<std::string>();
}

std::string StringOr(const nlohmann::json& obj, const std::string& key, const std::string& fallback) {
  const nlohmann::json* v = Value(obj, key);
  return (v != nullptr && v->is_string()) ? v->get<std::string>() : fallback;
}

Result<bool> BoolOr(const nlohmann::json& obj, const std::string& key, bool fallback, const std::string& origin) {
  const nlohmann::json* v = Value(obj, key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) return InvalidArgument(origin + ": field '" + key + "' must be true or false, got " + v->dump());
  return v->get<bool>();
}

std::vector<std::string> JsonFilesIn(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace frontier::sim::catalog
