// `frontier compare --baseline RUN --candidate RUN`: regressions beyond measured noise; exit 1 if any.
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/parse.h"
#include "report/compare.h"
#include "report/hardware_facts.h"
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
  auto baseline = report::ResolveRunRef(**st, baseline_ref);
  if (!baseline.ok()) return Fail("compare", baseline.status().WithContext("--baseline"));
  auto candidate = report::ResolveRunRef(**st, candidate_ref);
  if (!candidate.ok()) return Fail("compare", candidate.status().WithContext("--candidate"));
  auto b = (*st)->GetRun(*baseline);
  auto c = (*st)->GetRun(*candidate);
  if (!b.ok() || !c.ok()) return Fail("compare", b.ok() ? c.status() : b.status());
  auto r = report::CompareRuns(**st, *baseline, *candidate, o);
  if (!r.ok()) return Fail("compare", r.status());
  report::ComparedBands bands;
  for (auto [id, band] : {std::pair{*baseline, &bands.baseline}, std::pair{*candidate, &bands.candidate}}) {
    auto got = report::RunBand(**st, id);
    if (!got.ok()) return Fail("compare", got.status());
    *band = *got;
  }
  report::PrintComparison(*r, b->Label(), c->Label(), std::cout, bands);
  const double tdp_b = report::RunTdpW(*b), tdp_c = report::RunTdpW(*c);
  if (Status e = report::PrintEnergyComparison(**st, *baseline, *candidate, tdp_b, tdp_c, std::cout); !e.ok())
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
