// percentile_list.cc: a flag's comma-separated percentiles.
#include "metrics/percentile_list.h"

#include "core/parse.h"

namespace frontier::metrics {

Result<std::vector<double>> ParsePercentileList(const std::string& text, const std::string& flag_name) {
  std::vector<double> out;
  std::string rest = text;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    const Result<double> p = ParseNumber(flag_name, item, 0, 100);  // all of the item
    if (!p.ok() || out.size() >= 100)
      return InvalidArgument(flag_name + " must be at most 100 comma-separated numbers in [0, 100], got '" + text +
                             "'");
    out.push_back(*p);
  }
  if (out.empty()) return InvalidArgument(flag_name + " must list at least one value");
  return out;
}

}  // namespace frontier::metrics
