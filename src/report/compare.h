// compare.h: `frontier compare`: a candidate run against a baseline run from
// the store, point by point, flagging changes beyond the measured noise
// (analysis/regression.h).
//
// Points match on their key without the repetition ("1k1k|concurrency=16");
// the repetitions of a point are its samples.
//
// Thread safety: functions over a Store the caller owns.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "analysis/regression.h"
#include "core/status.h"
#include "store/store.h"

namespace frontier::report {

// Finds a run by reference: an id ("12"), a label ("quickstart/h200#12"), or
// "SWEEP/SYSTEM" for the latest run of that system in that sweep, with "~N"
// for the N-th run before the latest ("nightly/h200~1": the one before last),
// so a nightly job can compare without knowing ids. NotFound naming the
// reference and how to list runs.
Result<int64_t> ResolveRunRef(store::Store& store, const std::string& ref);

// The repetitions of each point of a run, grouped for FindRegressions.
Result<std::vector<analysis::PointSamples>> RunSamples(store::Store& store, int64_t run_id);

Result<analysis::RegressionReport> CompareRuns(store::Store& store, int64_t baseline, int64_t candidate,
                                               const analysis::RegressionOptions& options);

// A table of every compared metric, regressions first marked "REGRESSION".
void PrintComparison(const analysis::RegressionReport& report, const std::string& baseline_label,
                     const std::string& candidate_label, std::ostream& out);

// The two runs' tokens per joule point by point (repetitions averaged), each
// labelled: "measured (<source>)" where the point measured its energy
// (docs/energy.md), else "TDP bound" (total tokens/s/GPU over `*_tdp_w`; "-"
// when that is 0, unknown). Prints nothing when neither run measured energy.
Status PrintEnergyComparison(store::Store& store, int64_t baseline, int64_t candidate, double baseline_tdp_w,
                             double candidate_tdp_w, std::ostream& out);

}  // namespace frontier::report
