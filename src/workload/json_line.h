// json_line.h: one line of a JSONL file (a dataset, a trace) read as a JSON
// object, with the one pair of messages every JSONL reader in workload/ gives.
//
//   FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonObjectLine(line, path + ":" + lineno));
//
// Fails: InvalidArgument "<where>: not valid JSON (...)" or "<where>: each
// line must be a JSON object".
//
// Internal to workload/. Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace frontier::workload {

Result<nlohmann::json> ParseJsonObjectLine(std::string_view line, const std::string& where);

}  // namespace frontier::workload
