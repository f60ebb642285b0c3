#include "metrics/json_fields.h"

#include <cmath>

#include "core/parse.h"

namespace frontier::metrics {

using nlohmann::json;

std::string ShownJson(const json& v) {
  std::string d = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (d.size() > 40) d = d.substr(0, 40) + "...";
  return d;
}

const json* JsonFields::Find(const std::string& key) const {
  auto it = j_.find(key);
  return it == j_.end() || it->is_null() ? nullptr : &*it;
}

Result<std::optional<double>> JsonFields::Number(const std::string& key, double min, double max) const {
  const json* v = Find(key);
  if (v == nullptr) return std::optional<double>();
  FRONTIER_ASSIGN_OR_RETURN(const double d, Value(*v, key, min, max));
  return std::optional<double>(d);
}

Result<double> JsonFields::RequiredNumber(const std::string& key, double min, double max, const char* hint) const {
  if (Find(key) == nullptr) return Missing(key, hint);
  FRONTIER_ASSIGN_OR_RETURN(std::optional<double> v, Number(key, min, max));
  return *v;
}

Result<double> JsonFields::Value(const json& v, const std::string& field, double min, double max) const {
  if (v.is_number()) {
    const double d = v.get<double>();
    Status in = CheckRange(field, d, min, max);
    if (!in.ok()) return in.WithContext(where_);
    return d;
  }
  if (v.is_string()) {
    Result<double> d = ParseNumber(field, v.get_ref<const std::string&>(), min, max);
    if (!d.ok()) return d.status().WithContext(where_);
    return *d;
  }
  return InvalidArgument(where_ + ": " + field + " must be a number in [" + FormatNumber(min) + ", " +
                         FormatNumber(max) + "], got " + ShownJson(v));
}

Result<std::optional<int64_t>> JsonFields::Integer(const std::string& key, int64_t min, int64_t max) const {
  const json* v = Find(key);
  if (v == nullptr) return std::optional<int64_t>();
  FRONTIER_ASSIGN_OR_RETURN(int64_t i, IntegerValue(*v, key, min, max));
  return std::optional<int64_t>(i);
}

Result<int64_t> JsonFields::RequiredInteger(const std::string& key, int64_t min, int64_t max,
                                            const char* hint) const {
  if (Find(key) == nullptr) return Missing(key, hint);
  FRONTIER_ASSIGN_OR_RETURN(std::optional<int64_t> v, Integer(key, min, max));
  return *v;
}

Result<int64_t> JsonFields::IntegerValue(const json& v, const std::string& field, int64_t min, int64_t max) const {
  auto bad = [&] {
    return InvalidArgument(where_ + ": " + field + " must be an integer in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], got " + ShownJson(v));
  };
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(max)) return bad();
    return IntegerValue(json(static_cast<int64_t>(u)), field, min, max);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < min || i > max) return bad();
    return i;
  }
  if (v.is_number_float() || v.is_string()) {
    Result<double> d = Value(v, field, static_cast<double>(min), static_cast<double>(max));
    if (!d.ok() || *d != std::floor(*d)) return bad();
    return static_cast<int64_t>(*d);
  }
  return bad();
}

Result<std::string> JsonFields::Text(const std::string& key) const {
  const json* v = Find(key);
  if (v == nullptr) return std::string();
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number() || v->is_boolean()) return v->dump();
  return InvalidArgument(where_ + ": " + key + " must be a string, got " + ShownJson(*v));
}

Result<std::string> JsonFields::Name(const std::string& key) const {
  const json* v = Find(key);
  if (v == nullptr) return std::string();
  if (v->is_string()) return v->get<std::string>();
  return InvalidArgument(where_ + ": " + key + " must be a string, got " + ShownJson(*v));
}

Result<std::optional<bool>> JsonFields::Bool(const std::string& key) const {
  const json* v = Find(key);
  if (v == nullptr) return std::optional<bool>();
  if (v->is_boolean()) return std::optional<bool>(v->get<bool>());
  return InvalidArgument(where_ + ": " + key + " must be true or false, got " + ShownJson(*v));
}

Status JsonFields::Missing(const std::string& key, const char* hint) const {
  return InvalidArgument(where_ + ": field '" + key + "' is missing; " + hint);
}

}  // namespace frontier::metrics
