// `frontier db ls|export|import|copy`: the results database's runs, as tables and
// files, and between databases (SQLite and PostgreSQL).
#include <iostream>
#include <limits>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/redact.h"
#include "core/terminal_text.h"
#include "report/run_list.h"
#include "store/copy.h"
#include "store/copy_text.h"
#include "store/import_export.h"
#include "store/records.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

// `db copy`: the runs of `from` into `to`.
int DbCopy(const std::string& from, const std::string& to, const std::vector<int64_t>& copy_runs) {
  if (from == to) return UsageError("db copy", "--from and --to name the same database (" + RedactUrl(to) + ")");
  auto src = store::OpenStore(from, store::OpenMode::kSnapshot);
  if (!src.ok()) return Fail("db copy", src.status());
  auto dst = store::OpenResultsDb("db copy", to, std::cerr);
  if (!dst.ok()) return Fail("db copy", dst.status());
  auto o = store::CopyRuns(**src, **dst, copy_runs);
  if (!o.ok()) return Fail("db copy", o.status());
  const store::CopyText text = store::DescribeCopy(*o, from);
  std::cout << text.runs;
  std::cerr << text.warnings;
  std::cout << text.summary;
  std::cerr << text.incomplete;
  return o->skipped.empty() ? 0 : 1;
}

int RunDb(int argc, char** argv) {
  CLI::App app("The results database: list runs, export them, import published results, copy runs between "
               "databases", "db");
  app.require_subcommand(1);
  std::string db = store::DefaultLocation();
  app.add_option("--db", db, kDbHelp)->capture_default_str();

  auto* ls = app.add_subcommand("ls", "List runs with their point counts");

  auto* exp = app.add_subcommand("export", "Write every run and point as JSON (verdicts, trials, search outcomes "
                                          "and series as text; `db import` reads it back) or CSV (one row per "
                                          "point, with its verdict)");
  std::string format = "json", out_path;
  exp->add_option("--format", format, "json or csv")->check(CLI::IsMember({"json", "csv"}))->capture_default_str();
  exp->add_option("-o,--output", out_path, "File to write (default: stdout)");

  auto* imp = app.add_subcommand("import", "Import a vLLM `bench serve` result JSON, an InferenceX agg_*.json, or "
                                          "a `frontier db export` JSON (runs kept as they were: sources, verdicts, "
                                          "trials, search outcomes, series)");
  std::vector<std::string> files;
  store::ImportOptions io;
  imp->add_option("files", files, "Result files")->required();
  imp->add_option("--system", io.system, "Run name for a vLLM result (default backend:model)");
  imp->add_option("--hardware", io.hardware, "Hardware of a vLLM result (for prices and energy)");
  imp->add_option("--gpus", io.num_gpus, "GPUs behind a vLLM result (per-GPU throughput)")
      ->check(CLI::Range(1, static_cast<int>(store::bounds::kMaxGpus)))
      ->capture_default_str();
  for (auto* sub : {ls, exp, imp}) sub->add_option("--db", db, kDbHelp);

  auto* cp = app.add_subcommand("copy", "Copy runs (points and requests) into another database; ids are "
                                        "renumbered, and what the destination has already is skipped");
  std::string from, to;
  std::vector<int64_t> copy_runs;
  cp->add_option("--from", from, "Database to copy from (read only) [--db]");
  cp->add_option("--to", to, "Database to copy into (created when it is a missing SQLite file)")->required();
  cp->add_option("--runs", copy_runs, "Run ids in --from to copy, comma-separated [every run]")
      ->delimiter(',')
      ->check(CLI::Range(static_cast<int64_t>(1), std::numeric_limits<int64_t>::max()));
  cp->add_option("--db", db, kDbHelp);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  if (cp->parsed()) return DbCopy(from.empty() ? db : from, to, copy_runs);

  // Every file is read and checked before the database is opened, so a bad
  // file neither creates a database nor leaves half an import behind.
  std::vector<std::vector<store::ParsedRun>> parsed;
  for (const auto& f : files) {
    auto p = store::ReadResultFile(f, io);
    if (!p.ok()) return Fail("db import", p.status());
    parsed.push_back(std::move(*p));
  }
  // ls and export only read: a read-only file works and a missing one is an error.
  auto st = imp->parsed() ? store::OpenResultsDb("db import", db, std::cerr)
                          : store::OpenStore(db, store::OpenMode::kSnapshot);
  if (!st.ok()) return Fail(imp->parsed() ? "db import" : "db", st.status());
  store::Store& s = **st;
  if (ls->parsed()) {
    auto text = report::RunListText(s, db);
    if (!text.ok()) return Fail("db", text.status());
    std::cout << *text;
    return 0;
  }
  if (exp->parsed()) {
    auto text = format == "csv" ? store::ExportCsv(s) : store::ExportJson(s);
    if (!text.ok()) return Fail("db", text.status());
    if (out_path.empty()) {
      std::cout << *text;
      return 0;
    }
    Status w = WriteFileAtomically(out_path, *text);
    return w.ok() ? 0 : Fail("db", w);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    auto runs = store::StoreParsedRuns(s, std::move(parsed[i]));
    if (!runs.ok()) return Fail("db import", runs.status());
    for (const auto& r : *runs)
      std::cout << "imported " << EscapeControls(files[i]) << " as run " << r.id << " (" << EscapeControls(r.system)
                << ")\n";
  }
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(db, "List, export and import runs of the results database", frontier::cli::RunDb);
