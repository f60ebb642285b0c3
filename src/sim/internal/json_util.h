// json_util.h (internal to sim/): reading catalog files.
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

namespace frontier::sim::internal {

// Parses a whole file. Fails with NotFound / InvalidArgument naming `path`.
Result<nlohmann::json> ReadJsonFile(const std::string& path);

// The number at obj[key] (bare or {"value": ...}). Fails naming `origin` and `key`
// when it is absent or not a number.
Result<double> Number(const nlohmann::json& obj, const std::string& key, const std::string& origin);
// As Number, but `fallback` when the key is absent or null.
Result<double> NumberOr(const nlohmann::json& obj, const std::string& key, double fallback,
                        const std::string& origin);
Result<std::string> String(const nlohmann::json& obj, const std::string& key,
                           const std::string& origin);
std::string StringOr(const nlohmann::json& obj, const std::string& key, const std::string& fallback);
// The boolean at obj[key] (bare or {"value": ...}), `fallback` when absent.
// Fails naming `origin` and `key` when it is not true or false.
Result<bool> BoolOr(const nlohmann::json& obj, const std::string& key, bool fallback, const std::string& origin);

// Files ending in ".json" directly under `dir`, sorted. Empty if the folder is missing.
std::vector<std::string> JsonFilesIn(const std::string& dir);

}  // namespace frontier::sim::internal
