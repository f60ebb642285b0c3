// catalog_json.h: reading catalog files (hardware, models, stacks, published results).
//
// A catalog number is written either bare (`"hbm_gb": 80`) or with its public
// source (`"hbm_gb": {"value": 80, "source": "https://..."}`); both read the
// same. Errors name the file and the field.
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/status.h"

namespace frontier::sim::catalog {

// JSON nested deeper than this is refused before parsing (no catalog file or
// model config comes close; it keeps recursive walks shallow).
inline constexpr int64_t kMaxJsonDepth = 64;

// Parses JSON text; InvalidArgument naming `origin` when it is not JSON or is
// nested too deep. Never throws.
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& origin);

// Reads (at most kMaxCatalogBytes, core/atomic_file.h) and parses a whole
// file. Fails with NotFound / InvalidArgument naming `path`.
Result<nlohmann::json> ReadJsonFile(const std::string& path);

// The value at obj[key], bare or the "value" of {"value": ..., "source": ...};
// nullptr when the key is absent or null. Every reader below goes through it.
const nlohmann::json* Value(const nlohmann::json& obj, const std::string& key);

// The number at obj[key] (bare or {"value": ...}). Fails naming `origin` and `key`
// when it is absent or not a number.
Result<double> Number(const nlohmann::json& obj, const std::string& key, const std::string& origin);
// As Number, but `fallback` when the key is absent or null.
Result<double> NumberOr(const nlohmann::json& obj, const std::string& key, double fallback,
                        const std::string& origin);
// As Number / NumberOr, and within [min, max]: a catalog number outside any
// physical range is an error "<origin>: field '<key>' must be a number in
// [min, max], got <value>".
Result<double> NumberIn(const nlohmann::json& obj, const std::string& key, double min, double max,
                        const std::string& origin);
Result<double> NumberOrIn(const nlohmann::json& obj, const std::string& key, double fallback, double min,
                          double max, const std::string& origin);
Result<std::string> String(const nlohmann::json& obj, const std::string& key,
                           const std::string& origin);
std::string StringOr(const nlohmann::json& obj, const std::string& key, const std::string& fallback);
// The boolean at obj[key] (bare or {"value": ...}), `fallback` when absent.
// Fails naming `origin` and `key` when it is not true or false.
Result<bool> BoolOr(const nlohmann::json& obj, const std::string& key, bool fallback, const std::string& origin);

// Files ending in ".json" directly under `dir`, sorted. Empty if the folder is missing.
std::vector<std::string> JsonFilesIn(const std::string& dir);

}  // namespace frontier::sim::catalog
