// percentiles.cc: the percentile-list parser (percentiles.h).
#include "metrics/percentiles.h"

#include <cstdlib>

namespace frontier::metrics {

Result<std::vector<double>> ParsePercentileList(const std::string& text, std::string_view flag) {
  std::vector<double> out;
  std::string rest = text;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    char* end = nullptr;
    const double p = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(p >= 0 && p <= 100) || out.size() >= 100)
      return InvalidArgument(std::string(flag) + " must be at most 100 comma-separated numbers in [0, 100], got '" +
                             text + "'");
    out.push_back(p);
  }
  if (out.empty()) return InvalidArgument(std::string(flag) + " must list at least one value");
  return out;
}

}  // namespace frontier::metrics
