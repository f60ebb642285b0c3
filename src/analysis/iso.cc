#include "analysis/iso.h"

namespace frontier::analysis {

std::vector<IsoRow> CompareAtInteractivity(const std::vector<Series>& series,
                                           const std::vector<double>& targets, Throughput t) {
  std::vector<Curve> curves;
  for (const auto& s : series) curves.push_back(FrontierCurve(s.points, t));
  std::vector<IsoRow> rows;
  for (double x : targets) {
    IsoRow row;
    row.interactivity = x;
    for (const auto& c : curves) row.tput.push_back(Interpolate(c, x));
    for (size_t i = 0; i < curves.size(); ++i) {
      if (row.tput[i] && row.tput[0] && *row.tput[0] > 0) {
        row.ratio.push_back(*row.tput[i] / *row.tput[0]);
      } else {
        row.ratio.push_back(std::nullopt);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<double> DefaultTargets(const std::vector<Series>& series, Throughput t) {
  static const double kRound[] = {5, 10, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 500};
  std::vector<Curve> curves;
  for (const auto& s : series) curves.push_back(FrontierCurve(s.points, t));
  for (int need : {2, 1}) {
    std::vector<double> out;
    for (double x : kRound) {
      int covered = 0;
      for (const auto& c : curves) covered += Interpolate(c, x).has_value();
      if (covered >= need) out.push_back(x);
    }
    if (!out.empty() || need == 1) return out;
  }
  return {};
}

}  // namespace frontier::analysis
