#include "analysis/repetitions.h"

#include <cmath>

namespace frontier::analysis {
namespace {

// Two-sided critical values of Student's t for dof 1..30 (standard tables,
// e.g. NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2).
const double kT90[30] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
                         1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
                         1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697};
const double kT95[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                         2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                         2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
const double kT99[30] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
                         3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
                         2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};

}  // namespace

double StudentT(double level, int dof) {
  if (dof < 1) dof = 1;
  const double* table = level >= 0.985 ? kT99 : level >= 0.925 ? kT95 : kT90;
  if (dof <= 30) return table[dof - 1];
  // Cornish-Fisher expansion of t around the normal quantile z.
  const double z = level >= 0.985 ? 2.5758 : level >= 0.925 ? 1.9600 : 1.6449;
  const double v = dof, z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
}

MeanCi MeanConfidence(std::span<const double> x, double level) {
  MeanCi r;
  r.n = static_cast<int>(x.size());
  if (x.empty()) return r;
  double sum = 0;
  for (double v : x) sum += v;
  r.mean = sum / r.n;
  if (r.n < 2) return r;
  double ss = 0;
  for (double v : x) ss += (v - r.mean) * (v - r.mean);
  r.stddev = std::sqrt(ss / (r.n - 1));
  r.half_width = StudentT(level, r.n - 1) * r.stddev / std::sqrt(static_cast<double>(r.n));
  r.measured = true;
  return r;
}

}  // namespace frontier::analysis
