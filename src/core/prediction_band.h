// prediction_band.h: how sure a simulated point is, as plain fields.
//
// The simulator computes a band for every prediction (sim/fit/band.h: the 90th
// percentile of the leave-one-out errors of calibrated results of the same
// class, and a flag for each extrapolation). A simulated RunResult carries it
// (run_result.h), so the result JSON, the stored point, the report and the
// dashboard all read the same four fields without depending on the simulator.
// A measured point has none.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

namespace frontier {

struct PredictionBand {
  double half_width = 0;           // relative: the prediction is within +/- this (0.12: +/-12%)
  int points = 0;                  // calibrated results the band rests on (0: none at all)
  std::string basis;               // the class it came from, e.g. "MLA / tp / nvidia"
  std::vector<std::string> flags;  // extrapolations, each a short phrase ("GPU never calibrated (b200)")

  // "+/-12% (MLA / tp / nvidia, 30 results)", or "no band (no calibrated result)".
  std::string Describe() const;
  // Describe(), then "; extrapolates: <flags>" when there are flags: the line
  // `simulate`, `search` and `sweep` print.
  std::string DescribeWithFlags() const;
  // "±12%" (UTF-8), or "" when the band rests on no result: the column of
  // tables (search's trials, the report).
  std::string Short() const;
  // The flags joined by "; " ("" when there are none).
  std::string FlagsText() const;
  // [lower, upper] of `value` under the band: value * (1 -/+ half_width), the
  // lower never below 0.
  double Lower(double value) const;
  double Upper(double value) const;

  bool operator==(const PredictionBand&) const = default;
};

}  // namespace frontier
