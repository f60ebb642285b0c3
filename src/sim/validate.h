// validate.h: every published result predicted with its catalogued stack
// version, and, for the results a stack was calibrated on, the leave-one-out
// prediction (the stack's free parameters refitted without that result).
// Errors are summarised by model class (dense, MoE, MLA).
//
// Roles: "fitted" (calibratable, its stack lists free parameters: in-sample
// and leave-one-out errors), "held out" (published after June 2025 or marked
// held_out: a pure prediction, never fitted), "uncalibrated" (its stack
// version has no free parameters).
//
// Thread safety: reads the catalog; no shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/validation.h"

namespace frontier::sim {

struct ValidateOptions {
  ValidationOptions sim;
  std::string only_id;     // only results whose id contains this
  std::string only_stack;  // only results on this stack (name or name@version)
  bool leave_one_out = true;
  bool held_out = true;    // also predict the held-out results
};

struct ValidationRow {
  PublishedResult published;
  std::string model_class;  // dense, MoE, MLA
  std::string role;         // fitted, held out, uncalibrated
  double predicted = 0, error = 0;
  std::optional<double> loo_predicted, loo_error;
  std::optional<double> median_tpot_ms;
};

struct ClassSummary {
  std::string model_class;   // "dense", "MoE", "MLA" or "all"
  int points = 0;            // with a leave-one-out error
  double median_abs_loo = 0, max_abs_loo = 0;
  double median_abs_fit = 0;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<ClassSummary> classes;  // dense, MoE, MLA, all (only those with points)
  std::vector<ValidationRow> held_out;
  double seconds = 0;
};

Result<ValidationReport> Validate(const ValidationSet& set, const ValidateOptions& options);

}  // namespace frontier::sim
