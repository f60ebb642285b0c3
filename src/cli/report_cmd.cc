// `frontier report`: terminal tables and a self-contained HTML report from the results store.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/parse.h"
#include "report/html.h"
#include "report/model.h"
#include "report/terminal.h"
#include "sim/hardware.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int RunReport(int argc, char** argv) {
  CLI::App app("Tables in the terminal and a self-contained HTML report (Pareto frontier, latency, "
               "iso-interactivity, cost, energy, provenance) from the results database",
               "report");
  std::string db = "frontier.db", output, tier = "neocloud";
  std::vector<std::string> run_flags;
  std::vector<std::string> prices;
  std::vector<double> targets;
  bool quiet = false;
  app.add_option("--db", db, "Results database")->capture_default_str();
  app.add_option("-o,--output", output, "Write the HTML report here (e.g. report.html)");
  app.add_option("--run", run_flags, "Only these run ids (repeatable; default every run)");
  app.add_option("--price", prices,
                 "$/GPU-hour for a hardware name, HW=USD (repeatable; overrides the catalog)");
  app.add_option("--price-tier", tier, "Catalog price: neocloud, hyperscaler or three_year")
      ->check(CLI::IsMember({"neocloud", "hyperscaler", "three_year"}))
      ->capture_default_str();
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
  std::map<std::string, double> price_override;
  for (const auto& p : prices) {
    const size_t eq = p.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(p.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || !end || *end != '\0' || !(v > 0 && v <= 1e4)) {
      return UsageError("report", "--price: expected HW=USD with USD in (0, 10000] (e.g. h200=3.5), got '" + p + "'");
    }
    price_override[Lower(p.substr(0, eq))] = v;
  }
  auto st = store::OpenStore(db, store::OpenMode::kReadOnly);
  if (!st.ok()) return Fail("report", st.status());
  auto all_runs = (*st)->ListRuns();
  if (!all_runs.ok()) return Fail("report", all_runs.status());

  report::ReportOptions o;
  o.run_ids = runs;
  o.targets = targets;
  std::set<std::string> hardware;
  for (const auto& r : *all_runs)
    if (r.config.count("hardware") && !r.config.at("hardware").empty())
      hardware.insert(Lower(r.config.at("hardware")));
  for (const auto& hw : hardware) {
    report::HardwareFacts f;
    if (auto h = sim::LoadHardware(hw); h.ok()) {
      f.tdp_w = h->tdp_w;
      f.price_per_gpu_hour = tier == "hyperscaler" ? h->price.hyperscaler
                             : tier == "three_year" ? h->price.three_year
                                                    : h->price.neocloud;
      f.price_source = "catalog data/hardware/" + std::filesystem::path(h->file).filename().string() + " (" + tier + ")";
    }
    if (auto p = price_override.find(hw); p != price_override.end()) {
      f.price_per_gpu_hour = p->second;
      f.price_source = "--price";
    }
    if (f.price_per_gpu_hour > 0 || f.tdp_w > 0) o.hardware[hw] = f;
  }
  for (const auto& [hw, usd] : price_override) {
    if (!o.hardware.count(hw)) o.hardware[hw] = {usd, "--price", 0};
  }
  auto rep = report::BuildReport(**st, o);
  if (!rep.ok()) return Fail("report", rep.status());
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
