// `frontier compare --baseline RUN --candidate RUN`: regressions beyond measured noise; exit 1 if any.
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/parse.h"
#include "report/compare.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

int RunCompare(int argc, char** argv) {
  CLI::App app("Compare a candidate run with a baseline run point by point; exits 1 when a metric "
               "got worse beyond the measured run-to-run noise (for nightly CI)",
               "compare");
  std::string db = store::DefaultLocation();
  std::string baseline_ref, candidate_ref;
  analysis::RegressionOptions o;
  app.add_option("--db", db, kDbHelp)->capture_default_str();
  app.add_option("--baseline", baseline_ref,
                 "Baseline run: an id (`frontier db ls`), SWEEP/SYSTEM (the latest) or SWEEP/SYSTEM~N")
      ->required();
  app.add_option("--candidate", candidate_ref, "Candidate run, as --baseline")->required();
  app.add_option("--min-change", o.min_relative,
                 "Never flag a relative change below this (fraction of the baseline)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--threshold", o.unmeasured_threshold,
                 "Relative threshold when a side has a single repetition (no measured noise)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--confidence", o.level, "Confidence level of the noise band: 0.9, 0.95 or 0.99")
      ->check(CLI::IsMember({0.9, 0.95, 0.99}))
      ->capture_default_str();
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  // CLI11's range check lets "nan" through.
  for (const auto& [flag, v] : {std::pair{"--min-change", o.min_relative}, {"--threshold", o.unmeasured_threshold}})
    if (Status in = CheckRange(flag, v, 0.0, 1.0); !in.ok()) return UsageError("compare", in.message());
  auto st = store::OpenStore(db, store::OpenMode::kSnapshot);
  if (!st.ok()) return Fail("compare", st.status());
  auto cmp = report::CompareRunRefs(**st, baseline_ref, candidate_ref, o);
  if (!cmp.ok()) return Fail("compare", cmp.status());
  const analysis::RegressionReport* r = &cmp->report;
  report::PrintComparison(*r, cmp->baseline.Label(), cmp->candidate.Label(), std::cout, cmp->bands);
  if (Status e = report::PrintEnergyComparison(**st, cmp->baseline.id, cmp->candidate.id, cmp->baseline_tdp_w,
                                               cmp->candidate_tdp_w, std::cout);
      !e.ok())
    return Fail("compare", e);
  if (r->deltas.empty()) {
    std::cerr << "frontier compare: the runs share no point (different workloads or loads)\n";
    return 2;
  }
  return r->regressions > 0 ? 1 : 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(compare, "Flag regressions of a run against a baseline beyond measured noise",
                          frontier::cli::RunCompare);
