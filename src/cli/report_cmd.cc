// `frontier report`: terminal tables and a self-contained HTML report from the results store.
#include <cstdlib>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/parse.h"
#include "report/hardware_facts.h"
#include "report/html.h"
#include "report/model.h"
#include "report/terminal.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

int RunReport(int argc, char** argv) {
  CLI::App app("Tables in the terminal and a self-contained HTML report (Pareto frontier, latency, "
               "iso-interactivity, cost, energy, provenance) from the results database",
               "report");
  std::string db = store::DefaultLocation(), output;
  std::vector<std::string> run_flags;
  PriceFlags price_flags;
  std::vector<double> targets;
  bool quiet = false;
  app.add_option("--db", db, kDbHelp)->capture_default_str();
  app.add_option("-o,--output", output, "Write the HTML report here (e.g. report.html)");
  app.add_option("--run", run_flags, "Only these run ids (repeatable; default every run)");
  AddPriceFlags(app, price_flags);
  app.add_option("--targets", targets, "Interactivity targets, tok/s/user (default: round values "
                                       "the frontiers cover)")
      ->delimiter(',');
  app.add_flag("-q,--quiet", quiet, "Do not print the tables");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  // Run ids are parsed here: the flag parser saturated 99999999999999999999 to INT64_MAX.
  std::vector<int64_t> runs;
  for (const auto& r : run_flags) {
    Result<int64_t> id = ParseInt("--run", r, 1, INT64_MAX);
    if (!id.ok()) return UsageError("report", id.status().message());
    runs.push_back(*id);
  }
  for (double t : targets)
    if (Status in = CheckRange("--targets", t, 1e-9, 1e9); !in.ok()) return UsageError("report", in.message());
  auto price_override = report::ParsePriceOverrides(price_flags.prices);
  if (!price_override.ok()) return UsageError("report", price_override.status().message());
  auto st = store::OpenStore(db, store::OpenMode::kSnapshot);
  if (!st.ok()) return Fail("report", st.status());
  auto all_runs = (*st)->ListRuns(store::Store::PlanText::kWithout);
  if (!all_runs.ok()) return Fail("report", all_runs.status());

  report::ReportOptions o;
  o.run_ids = runs;
  o.targets = targets;
  o.hardware = report::HardwareFactsOfRuns(*all_runs, price_flags.tier, *price_override);
  auto rep = report::BuildReport(**st, o);
  if (!rep.ok()) return Fail("report", rep.status());
  if (std::string note = report::UnusedPriceNote(*rep, *price_override); !note.empty())
    std::cerr << "frontier report: " << note << "\n";
  if (!quiet) report::PrintReport(*rep, std::cout);
  if (!output.empty()) {
    Status w = WriteFileAtomically(output, report::RenderHtml(*rep));
    if (!w.ok()) return Fail("report", w);
    std::cout << "wrote " << output << " (" << rep->stored_points << " points, " << rep->series.size()
              << " series)\n";
  }
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(report, "Tables and a self-contained HTML report from the results database",
                          frontier::cli::RunReport);
