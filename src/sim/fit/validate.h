// validate.h: every published result predicted with its catalogued stack
// version, and, for the results a stack was calibrated on, the leave-one-out
// prediction (the stack's free parameters refitted without that result).
// Errors are summarised by model class (dense, MoE, MLA).
//
// Two tables (the rule of calibration, validation.h):
//   calibration  results on the calibration GPUs. Roles: "fitted" (its stack
//                lists free parameters: in-sample and leave-one-out errors),
//                "uncalibrated" (its stack version has no free parameters),
//                "held out" (marked held_out: a pure prediction).
//   transfer     results on the validation GPUs (B200, GB200, MI355X, ...),
//                never fitted: each with its prediction band (band.h) and
//                whether the published value lies inside it.
//
// Thread safety: reads the catalog; no shared state. Runs its predictions
// and refits on ValidateOptions::threads threads; the report does not depend
// on how many.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "sim/fit/band.h"
#include "sim/fit/validation.h"

namespace frontier::sim {

// How far a fresh prediction may be from the one a stack's record holds for
// the record to be current. A Server result's record is its replayed steady
// state scaled by the Server-to-Offline ratio of the fit's last simulation;
// a fresh rate search lands within a few percent of it, so only a change
// beyond kServerRecordTolerance says the model moved. Every stack with a
// Server result has results of other scenarios, held to kRecordTolerance.
inline constexpr double kRecordTolerance = 0.01;
inline constexpr double kServerRecordTolerance = 0.10;

// What `frontier validate` is asked (ValidateFlagRows fills it): how each
// result is simulated (its base: --offline-requests, --server-requests,
// --seed), which results, and the leave-one-out errors.
struct ValidateOptions : ValidationOptions {
  std::string only_id;     // --id: only results whose id contains this
  std::string only_stack;  // --stack: only results on this stack (name or name@version)
  bool no_loo = false;     // --no-loo: skip the leave-one-out refits (in-sample errors only)
  // Refit every stack for its leave-one-out errors. Otherwise a stack's
  // recorded errors (its file's calibration.points, written by `frontier
  // calibrate`) are read when the record is current: it lists exactly the
  // stack's calibratable results, and each result's fresh prediction is
  // within kRecordTolerance (Server: kServerRecordTolerance) of the one
  // recorded. A stack whose record is not current is refitted.
  bool refit = false;
  bool held_out = true;    // also predict the held-out results and the transfer table
  int threads = 0;         // predictions and refits side by side (0: one thread per core)
};

struct ValidationRow {
  PublishedResult published;
  std::string model_class;  // dense, MoE, MLA
  std::string role;         // fitted, held out, uncalibrated
  double predicted = 0, error = 0;
  std::optional<double> loo_predicted, loo_error;
  std::optional<double> median_tpot_ms;
  std::string failure;        // transfer and held-out rows: why no prediction came ("" = one did)
  PredictionBand band;        // transfer rows
  bool within_band = false;   // transfer rows: |error| <= band.half_width
};

struct ClassSummary {
  std::string model_class;   // "dense", "MoE", "MLA" or "all"
  int points = 0;            // with a leave-one-out error
  double median_abs_loo = 0, max_abs_loo = 0;
  double median_abs_fit = 0;
};

// The transfer table's summary of one class: |error| of pure predictions.
struct TransferSummary {
  std::string model_class;   // "dense", "MoE", "MLA" or "all"
  int points = 0;
  double median_abs = 0, max_abs = 0;
  int within_band = 0;       // published value inside the prediction's band
  int failed = 0;            // no prediction (counted in points, not in the |error| figures)
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<ClassSummary> classes;  // dense, MoE, MLA, all (only those with points)
  std::vector<ValidationRow> held_out;
  std::vector<ValidationRow> transfer;           // on validation GPUs
  std::vector<TransferSummary> transfer_classes;  // dense, MoE, MLA, all (only those with points)
  // The bands' transfer rates (band.h) for nvidia and amd, from the stack
  // files' recorded cross-GPU errors.
  std::vector<std::pair<std::string, TransferRate>> transfer_rates;
  // Stacks whose leave-one-out errors were read from their current record,
  // and those refitted (ValidateOptions::refit), by id.
  std::vector<std::string> loo_recorded, loo_refitted;
  double seconds = 0;
};

Result<ValidationReport> Validate(const ValidationSet& set, const ValidateOptions& options);

// `frontier validate`'s flags, in --help's order (group "Options"): --id,
// --stack, --offline-requests, --server-requests, --seed, --no-loo, --refit;
// their validator is ValidationOptionsProblem (validation.h).
std::span<const FlagRow<ValidateOptions>> ValidateFlagRows();


}  // namespace frontier::sim
