// fit.h: a probe's measurements as points of the simulator's efficiency
// curves for its GPU (`frontier calibrate --probe RUN`).
//
// Per GEMM precision, every tuned GEMM point (all layers, all M) gives
// (x = M rows, y = tuned fraction of the catalogued peak), and the curve
// y = max x / (x + half) of efficiency.h is fitted to them in log space,
//   min over (max, half) of  sum_i (log(max x_i / (x_i + half)) - log y_i)^2,
// since a step's time goes as 1 / efficiency and a relative error is what a
// prediction inherits. For a fixed half the best log max is the mean of
// log y_i - log(x_i / (x_i + half)); half is searched on a log grid over
// [0.01, 1e5] rows and refined by golden section. HBM: `hbm` (weight
// streaming) is the faster of the copy and triad kernels' fractions of peak. `attention.decode_bw` is the decode
// kernel's fraction, fitted only when asked for by name: the probe's kernel
// is a simple one of ours, not the engine's.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "probe/probe.h"
#include "sim/engine/efficiency.h"
#include "sim/engine/gpu_override.h"

namespace frontier::probe {

struct CurveFit {
  GemmPrecision precision = GemmPrecision::kBf16;
  sim::Curve curve;
  int points = 0;
  double rms_log_error = 0;   // of the fit over its points (0.05 ~ 5 %)
};

// The curve of `points` (x, y > 0). InvalidArgument for no points or y <= 0.
Result<sim::Curve> FitCurve(const std::vector<std::pair<double, double>>& points, double* rms_log_error);

struct ProbeFit {
  std::vector<CurveFit> curves;
  sim::GpuOverride override_file;  // what `calibrate --probe` writes
};

// Fits `r` (stored as `run_label`, created `created_utc`). `only` limits the
// parameters written (names of efficiency.h; empty: gemm.*.max/.half of each
// measured precision and hbm). InvalidArgument when `only` names a parameter
// the probe does not measure, or the probe holds nothing to fit.
Result<ProbeFit> FitProbe(const ProbeResult& r, const std::string& run_label, const std::string& created_utc,
                          const std::vector<std::string>& only);

}  // namespace frontier::probe
