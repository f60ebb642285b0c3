// calibration.h: fitting a stack version's free parameters to measured or
// published throughput, with leave-one-out errors.
//
// The fit minimises, over the free parameters θ (efficiency.h names them),
//
//   Σ_i ρ(log(predicted_i(θ) / measured_i) / s) + Σ_j ((z_j - z0_j) / σ)²
//
// (closed-loop and batch results that publish their mean TPOT and TTFT add
// those log errors too: they pin decode and prefill costs apart) where ρ is
// the soft-L1 loss ρ(v) = 2 (sqrt(1 + v²) - 1) (quadratic for
// |v| < 1, linear beyond, so one wild point cannot drag the rest), s the
// error scale (5 %), z_j is
// parameter j mapped to an unbounded scale (logit for fractions, log for
// times and sizes) and z0_j its prior: a weak ridge that leaves a parameter
// the data cannot see at its prior. Levenberg-Marquardt with forward
// differences solves the re-weighted least squares.
//
// Speed: each prediction replays its run's recorded steps under θ
// (validation.h: ResultModel::Replay), microseconds per step instead of a
// simulation. After the inner fit converges every run is simulated again at θ
// whose replay is not exact (Server results: new Server-to-Offline ratios)
// and the fit repeats, until the replayed and simulated predictions agree
// within 0.2 % or within what the simulation resolves (a Server rate
// search's last bisection interval, about 0.4 %), at most `outer_rounds`
// times.
//
// Identification: a parameter is fitted only when the points identify it:
// some point lies in its scope (efficiency.h: a generic cost needs a dense
// model, an MLA cost an MLA model, ...) and moving it moves some prediction
// by 0.5 %. The others keep their values (inherited from the previous
// version, or their own source) and are reported with the reason. The priors
// are the stack's (stack.h): the previous version's values.
//
// Cross-GPU: where the points ran on two GPUs or more, the fit is redone
// without all the points of one GPU, for each GPU in turn, and those points
// predicted the same way: the error of carrying a fit to a GPU it never saw
// (sim/fit/band.h turns it into the transfer part of a band).
//
// Leave-one-out: for each point, the fit is redone without it, outer rounds
// included (the other points whose replay is not exact are re-simulated at
// that refit, on copies), and the point predicted at those parameters: by a
// fresh simulation for a Server result, by its replay otherwise (which equals
// a simulation). The refit minimises the objective without the point (the
// ridge still pulls toward the priors); its first fit starts both from the
// priors and from the full fit (near its optimum, so the outer rounds that
// follow re-simulate little) and keeps the lower cost. The refits are
// independent and run on `threads` threads.
//
// Thread safety: Calibrate() is not thread-safe with respect to its models
// (it runs its own threads over them).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "sim/engine/stack.h"
#include "sim/fit/validation.h"

namespace frontier::sim {

struct CalibrationOptions {
  std::vector<std::string> free;  // parameters to fit (empty: the stack's calibration.free)
  double loss_scale = 0.05;       // s of the soft-L1 loss, in log units (5 %)
  double prior_sigma = 3.0;       // σ of the ridge toward the priors, in z units
  int max_iterations = 60;        // Levenberg-Marquardt iterations per fit
  int outer_rounds = 3;           // fits, each followed by re-simulating the runs without exact replay
  bool leave_one_out = true;
  // Also refit without each calibration GPU's points in turn and predict them
  // (cross-GPU errors: how well a fit carries to a GPU it did not see). Only
  // where the points span two GPUs or more, and only with leave_one_out.
  bool cross_gpu = true;
  int threads = 0;                // leave-one-out refits at once (0: one per core)
};

struct CalibratedPoint {
  std::string id;
  std::string model_class;        // dense, MoE or MLA (validation.h, ModelClass)
  double measured = 0;
  double predicted = 0;           // with the fit on every point
  double error = 0;               // predicted / measured - 1
  double loo_predicted = 0;       // with the fit that left this point out (0 if not computed)
  double loo_error = 0;
  std::string hardware;           // hardware catalog id of the point's deployment
  // With the fit that left out every point on this point's GPU (0 if not
  // computed: the points ran on one GPU, or cross_gpu was off).
  double cross_gpu_predicted = 0;
  double cross_gpu_error = 0;
};

struct CalibrationResult {
  StackParams params;             // the fit (the free parameters changed, the rest as given)
  std::vector<std::string> free;  // the parameters fitted: the candidates the points identify
  // Candidates the points do not identify, with the reason (kept as given).
  std::vector<std::pair<std::string, std::string>> not_identified;
  std::vector<CalibratedPoint> points;
  int iterations = 0;             // Levenberg-Marquardt iterations, all fits
  int64_t replays = 0;            // trace replays, all fits
  int simulations = 0;            // full simulations
  double seconds = 0;             // wall time
};

// Fits `stack`'s free parameters (options.free, else the stack's
// calibration.free) that `models` identify to them (each with its measured
// value). Errors: InvalidArgument for an unknown or repeated parameter, no
// model, or no parameter the models identify (naming each and why); whatever
// a simulation returns.
Result<CalibrationResult> Calibrate(const Stack& stack, std::vector<ResultModel>& models,
                                    const CalibrationOptions& options);

// Writes `stack` with `result`'s parameters to `path` (atomically): fitted
// parameters get the source "fitted: ..." and their prior (with where it came
// from); a parameter an earlier fit set that this one does not fit is
// withdrawn (inherited again, or back to its prior without a parent); the
// calibration record lists the points, their errors and leave-one-out
// errors, the candidates, those fitted and those the points did not
// identify, the date and the method. `base_path` is the file the stack was
// read from (its other fields are kept).
Status WriteCalibratedStack(const Stack& stack, const CalibrationResult& result, const std::string& base_path,
                            const std::string& path, const std::string& version, const std::string& note);

}  // namespace frontier::sim
