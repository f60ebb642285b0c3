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
#include <optional>
#include <ostream>
#include <string>

#include "analysis/regression.h"
#include "core/prediction_band.h"
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

// How sure a run's figures are when it is simulated: the widest prediction
// band of its points (they share a configuration, so a class), with every
// flag of any of them; none for a measured run. NotFound for no such run.
Result<std::optional<PredictionBand>> RunBand(store::Store& store, int64_t run_id);

// The bands of the two runs compared (RunBand), for PrintComparison.
struct ComparedBands {
  std::optional<PredictionBand> baseline, candidate;
};

// Whether a change of `relative_change` in `metric` lies within the bands:
// "within ±12%" / "beyond ±12%" for a throughput or interactivity metric when
// either run is simulated (the wider band of the two), "" otherwise. A
// prediction compared with a measurement (or two predictions) can only be
// told apart beyond the band.
std::string BandVerdict(const ComparedBands& bands, const std::string& metric, double relative_change);

// A table of every compared metric, regressions first marked "REGRESSION";
// with a simulated run among the two, its band beside its label and a "band"
// column (BandVerdict).
void PrintComparison(const analysis::RegressionReport& report, const std::string& baseline_label,
                     const std::string& candidate_label, std::ostream& out, const ComparedBands& bands = {});

// The two runs' tokens per joule point by point (repetitions averaged), each
// labelled: "measured (<source>)" where the point measured its energy
// (docs/energy.md), else "TDP bound" (total tokens/s/GPU over `*_tdp_w`; "-"
// when that is 0, unknown). Prints nothing when neither run measured energy.
Status PrintEnergyComparison(store::Store& store, int64_t baseline, int64_t candidate, double baseline_tdp_w,
                             double candidate_tdp_w, std::ostream& out);

// A candidate run compared with a baseline run, as `frontier compare` prints it.
struct RunComparison {
  store::RunInfo baseline, candidate;
  analysis::RegressionReport report;         // CompareRuns
  ComparedBands bands;                       // RunBand of each
  double baseline_tdp_w = 0, candidate_tdp_w = 0;  // RunTdpW of each (hardware_facts.h)
};

// Resolves both references (ResolveRunRef; its error with the context
// "--baseline" or "--candidate"), reads the runs and compares them. The
// store's or CompareRuns' error.
Result<RunComparison> CompareRunRefs(store::Store& store, const std::string& baseline_ref,
                                     const std::string& candidate_ref, const analysis::RegressionOptions& options);

}  // namespace frontier::report
