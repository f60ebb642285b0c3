#include "workload/length_table.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/limits.h"

namespace frontier::workload {
namespace {

using nlohmann::json;

// A catalog field's value: bare, or the "value" of {"value", "source"}.
const json* ValueOf(const json& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key)) return nullptr;
  const json& v = obj[key];
  if (v.is_object()) return v.contains("value") ? &v["value"] : nullptr;
  return &v;
}

Result<std::vector<double>> Quantiles(const json& obj, const std::string& key, const std::string& where) {
  const json* v = ValueOf(obj, key);
  if (v == nullptr || !v->is_array() || v->size() < 2)
    return InvalidArgument(where + ": field '" + key + "' must be an array of at least 2 quantiles");
  std::vector<double> out;
  for (const auto& x : *v) {
    if (!x.is_number()) return InvalidArgument(where + ": field '" + key + "' holds a non-number");
    out.push_back(x.get<double>());
    if (!(out.back() >= 1 && out.back() <= kMaxRequestLength) || (out.size() > 1 && out.back() < out[out.size() - 2]))
      return InvalidArgument(where + ": field '" + key + "' must be non-decreasing lengths in [1, " +
                             std::to_string(kMaxRequestLength) + "]");
  }
  return out;
}

Result<double> NumberIn(const json& obj, const std::string& key, double fallback, double lo, double hi,
                        const std::string& where) {
  const json* v = ValueOf(obj, key);
  if (v == nullptr) {
    if (fallback >= 0) return fallback;
    return InvalidArgument(where + ": field '" + key + "' is missing");
  }
  if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi))
    return InvalidArgument(where + ": field '" + key + "' must be a number in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
  return v->get<double>();
}

}  // namespace

double QuantileAt(const std::vector<double>& q, double u) {
  if (q.empty()) return 0;
  if (q.size() == 1) return q[0];
  const double pos = std::clamp(u, 0.0, 1.0) * static_cast<double>(q.size() - 1);
  const size_t i = std::min(q.size() - 2, static_cast<size_t>(pos));
  const double f = pos - static_cast<double>(i);
  return q[i] * (1 - f) + q[i + 1] * f;
}

double QuantileTableMean(const std::vector<double>& q) {
  if (q.size() < 2) return q.empty() ? 0 : q[0];
  double sum = 0;
  for (size_t i = 0; i + 1 < q.size(); ++i) sum += (q[i] + q[i + 1]) / 2;
  return sum / static_cast<double>(q.size() - 1);
}

double LengthTable::InputMean() const { return QuantileTableMean(input_quantiles); }
double LengthTable::OutputMean() const { return QuantileTableMean(output_quantiles); }

Result<std::vector<LengthTable>> ReadLengthTables(const std::string& path) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxFileBytes, "length tables"));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidArgument(path + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("datasets") || !doc["datasets"].is_object())
    return InvalidArgument(path + ": expected {\"datasets\": {NAME: {...}}}");
  std::vector<LengthTable> out;
  for (auto it = doc["datasets"].begin(); it != doc["datasets"].end(); ++it) {
    LengthTable t;
    t.name = it.key();
    const std::string where = path + ": datasets." + t.name;
    if (const json* b = ValueOf(*it, "benchmark"); b != nullptr) {
      if (!b->is_string()) return InvalidArgument(where + ": field 'benchmark' must be a string");
      t.benchmark = b->get<std::string>();
    }
    FRONTIER_ASSIGN_OR_RETURN(double samples, NumberIn(*it, "samples", -1, 1, 1e12, where));
    t.samples = static_cast<int64_t>(samples);
    FRONTIER_ASSIGN_OR_RETURN(t.input_quantiles, Quantiles(*it, "input_quantiles", where));
    FRONTIER_ASSIGN_OR_RETURN(t.output_quantiles, Quantiles(*it, "output_quantiles", where));
    FRONTIER_ASSIGN_OR_RETURN(double max_output, NumberIn(*it, "max_output", 1024, 1, kMaxRequestLength, where));
    t.max_output = static_cast<int32_t>(max_output);
    out.push_back(std::move(t));
  }
  return out;
}

const LengthTable* FindLengthTable(const std::vector<LengthTable>& tables, std::string_view name) {
  for (const auto& t : tables)
    if (t.name == name || (!t.benchmark.empty() && t.benchmark == name)) return &t;
  return nullptr;
}

std::vector<RequestSpec> DrawLengths(const LengthTable& t, int64_t count, double output_mean, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double scale = output_mean > 0 ? output_mean / t.OutputMean() : 1.0;
  std::vector<RequestSpec> out(static_cast<size_t>(std::max<int64_t>(0, count)));
  for (int64_t i = 0; i < count; ++i) {
    auto& s = out[static_cast<size_t>(i)];
    s.id = i;
    s.input_len = std::max<int32_t>(1, static_cast<int32_t>(std::lround(QuantileAt(t.input_quantiles, u(rng)))));
    const double o = QuantileAt(t.output_quantiles, u(rng)) * scale;
    s.output_len = std::clamp<int32_t>(static_cast<int32_t>(std::lround(o)), 1, t.max_output);
  }
  return out;
}

}  // namespace frontier::workload
