// iso.h: systems compared at equal interactivity.
//
// For each target interactivity, each system's throughput per GPU is read
// off its frontier by monotone interpolation (frontier.h); a system whose
// frontier does not reach that interactivity has no value there (never
// extrapolated). The ratio is each system's value over the reference
// system's (the first series), "at 25 tok/s/user, A delivers 1.8x B per GPU".
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/frontier.h"

namespace frontier::analysis {

struct Series {
  std::string name;
  std::vector<OperatingPoint> points;
};

struct IsoRow {
  double interactivity = 0;
  std::vector<std::optional<double>> tput;    // per series, tokens/s/GPU
  std::vector<std::optional<double>> ratio;   // per series, over series 0 (1 for series 0)
};

std::vector<IsoRow> CompareAtInteractivity(const std::vector<Series>& series,
                                           const std::vector<double>& targets, Throughput t);

// Round interactivity targets (5, 10, 20, 25, 30, 40, 50, 75, 100, 150, 200,
// 300, 500 tok/s/user) that at least two series' frontiers cover; if none,
// those covered by at least one.
std::vector<double> DefaultTargets(const std::vector<Series>& series, Throughput t);

}  // namespace frontier::analysis
