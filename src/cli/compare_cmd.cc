// `frontier compare --baseline RUN --candidate RUN`: regressions beyond measured noise; exit 1 if any.
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "report/compare.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

int RunCompare(int argc, char** argv) {
  CLI::App app("Compare a candidate run with a baseline run point by point; exits 1 when a metric "
               "got worse beyond the measured run-to-run noise (for nightly CI)",
               "compare");
  std::string db = "frontier.db";
  int64_t baseline = 0, candidate = 0;
  analysis::RegressionOptions o;
  app.add_option("--db", db, "Results database")->capture_default_str();
  app.add_option("--baseline", baseline, "Baseline run id (see `frontier db ls`)")->required();
  app.add_option("--candidate", candidate, "Candidate run id")->required();
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
  auto st = store::OpenStore(db);
  if (!st.ok()) return Fail("compare", st.status());
  auto b = (*st)->GetRun(baseline);
  if (!b.ok()) return Fail("compare", b.status().WithContext("--baseline"));
  auto c = (*st)->GetRun(candidate);
  if (!c.ok()) return Fail("compare", c.status().WithContext("--candidate"));
  auto r = report::CompareRuns(**st, baseline, candidate, o);
  if (!r.ok()) return Fail("compare", r.status());
  report::PrintComparison(*r, b->Label(), c->Label(), std::cout);
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
