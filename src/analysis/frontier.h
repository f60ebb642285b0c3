// frontier.h: the Pareto frontier of throughput per GPU against interactivity,
// and monotone interpolation along it.
//
// A configuration is better when it gives more throughput per GPU AND more
// interactivity (tokens/s per user); the frontier is the set of points no
// other point beats on both. Sorted by interactivity ascending, its
// throughput is strictly decreasing, so it can be interpolated monotonically:
// frontier uses Fritsch-Carlson piecewise cubic Hermite interpolation (PCHIP),
// which passes through every frontier point, stays between neighbouring
// points (no overshoot) and keeps the curve decreasing. It never
// extrapolates: outside the frontier's interactivity range there is no answer.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace frontier::analysis {

// One operating point of a system: a (workload, load) measured or simulated,
// possibly the mean of several repetitions.
struct OperatingPoint {
  double interactivity = 0;        // tokens/s/user (x)
  double total_tput_per_gpu = 0;   // input + output tokens/s/GPU
  double output_tput_per_gpu = 0;  // output tokens/s/GPU
  double load = 0;                 // concurrency or request rate, for labels
};

enum class Throughput { kTotal, kOutput };

double ThroughputOf(const OperatingPoint& p, Throughput t);

// Indices into `points` of the Pareto-optimal ones (maximising interactivity
// and the chosen throughput), ordered by interactivity ascending. Points with
// a non-positive or non-finite coordinate are ignored. Of exact duplicates,
// the first is kept.
std::vector<size_t> ParetoFrontier(std::span<const OperatingPoint> points, Throughput t);

// A frontier as a curve: x (interactivity) strictly increasing, y (throughput
// per GPU) strictly decreasing.
struct Curve {
  std::vector<double> x, y;
  bool empty() const { return x.empty(); }
};

Curve FrontierCurve(std::span<const OperatingPoint> points, Throughput t);

// y at x by PCHIP along the curve; nullopt when x lies outside [x.front(), x.back()]
// or the curve is empty. A one-point curve answers only at its own x.
std::optional<double> Interpolate(const Curve& curve, double x);

}  // namespace frontier::analysis
