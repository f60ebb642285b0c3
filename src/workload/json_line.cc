#include "workload/json_line.h"

namespace frontier::workload {

Result<nlohmann::json> ParseJsonObjectLine(std::string_view line, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    return InvalidArgument(where + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) return InvalidArgument(where + ": each line must be a JSON object");
  return j;
}

}  // namespace frontier::workload
