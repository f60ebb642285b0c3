// repetitions.h: what repeated runs of the same point say about its noise.
//
// Mean with a two-sided Student-t confidence interval:
//   half_width = t(1 - alpha/2, n - 1) * s / sqrt(n),  s = sample std (n - 1)
// One sample has no measured spread: half_width 0 and `measured` false.
//
// Thread safety: pure functions.
#pragma once

#include <span>

namespace frontier::analysis {

struct MeanCi {
  double mean = 0;
  double stddev = 0;       // sample standard deviation (n - 1); 0 when n < 2
  double half_width = 0;   // confidence interval is mean +- half_width
  int n = 0;
  bool measured = false;   // n >= 2
};

// REQUIRES: level is 0.90, 0.95 or 0.99.
MeanCi MeanConfidence(std::span<const double> samples, double level = 0.95);

// Two-sided Student-t critical value t(1 - (1 - level)/2, dof), dof >= 1.
// Exact table values for dof <= 30, then the normal approximation's series.
double StudentT(double level, int dof);

}  // namespace frontier::analysis
