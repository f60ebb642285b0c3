// json_fields.h: the fields of one JSON object from outside frontier (a
// result file, one record of a published table), each read with its type and
// physical range so that no input is silently taken as 0 or crashes a reader.
//
// An absent or null field is "not given"; a present one of the wrong type or
// outside its range is an InvalidArgument in core/parse.h's shape, prefixed
// with where the object came from:
//
//   "<where>: <field> must be a number in [0, 1000000000], got 'fast'"
//
//   const JsonFields f(doc, "result.json");
//   FRONTIER_ASSIGN_OR_RETURN(std::optional<double> d, f.Number("duration", 0, 1e9));
//
// Numbers may be written as JSON numbers or numeric strings ("1000");
// integers must be whole (1e3 is, 2.5 is not).
//
// Thread safety: a JsonFields reads the object it was given, which must
// outlive it and stay unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace frontier::metrics {

// A value as an error message shows it: its JSON text, cut at 40 characters.
std::string ShownJson(const nlohmann::json& v);

class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string where) : j_(object), where_(std::move(where)) {}

  // The field, or null when absent or null.
  const nlohmann::json* Find(const std::string& key) const;

  // A number in [min, max]; nullopt when not given.
  Result<std::optional<double>> Number(const std::string& key, double min, double max) const;
  // As Number; a missing field is an error "<where>: field '<key>' is missing; <hint>".
  Result<double> RequiredNumber(const std::string& key, double min, double max, const char* hint) const;
  // `v` (named `field` in messages) as a number in [min, max].
  Result<double> Value(const nlohmann::json& v, const std::string& field, double min, double max) const;

  // A whole number in [min, max]; nullopt when not given.
  Result<std::optional<int64_t>> Integer(const std::string& key, int64_t min, int64_t max) const;
  Result<int64_t> RequiredInteger(const std::string& key, int64_t min, int64_t max, const char* hint) const;
  Result<int64_t> IntegerValue(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max) const;

  // A string; "" when absent. Numbers and booleans are written as they are
  // (isl: 1024 -> "1024").
  Result<std::string> Text(const std::string& key) const;
  // A string and nothing else; "" when absent.
  Result<std::string> Name(const std::string& key) const;
  // A boolean; nullopt when not given.
  Result<std::optional<bool>> Bool(const std::string& key) const;

  const std::string& where() const { return where_; }

 private:
  Status Missing(const std::string& key, const char* hint) const;

  const nlohmann::json& j_;
  std::string where_;
};

}  // namespace frontier::metrics
