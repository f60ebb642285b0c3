#include "core/prediction_band.h"

#include <algorithm>
#include <cstdio>

namespace frontier {

std::string PredictionBand::Describe() const {
  if (points == 0) return "no band (no calibrated result)";
  char buf[200];
  std::snprintf(buf, sizeof buf, "+/-%.0f%% (%s, %d results)", 100 * half_width, basis.c_str(), points);
  return buf;
}

std::string PredictionBand::DescribeWithFlags() const {
  return flags.empty() ? Describe() : Describe() + "; extrapolates: " + FlagsText();
}

std::string PredictionBand::Short() const {
  if (points == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "\u00b1%.0f%%", 100 * half_width);
  return buf;
}

std::string PredictionBand::FlagsText() const {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : "; ") + f;
  return out;
}

double PredictionBand::Lower(double value) const { return std::max(0.0, value * (1 - half_width)); }
double PredictionBand::Upper(double value) const { return value * (1 + half_width); }

}  // namespace frontier
