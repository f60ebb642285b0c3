// `frontier db ls|export|import|copy`: the results database's runs, as tables and
// files, and between databases (SQLite and PostgreSQL).
#include <iostream>
#include <limits>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/redact.h"
#include "core/terminal_text.h"
#include "report/table.h"
#include "store/copy.h"
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
  auto dst = store::OpenStore(to, store::OpenMode::kCreate);
  if (!dst.ok()) return Fail("db copy", dst.status());
  if ((*dst)->Created()) std::cerr << "frontier db copy: created results database " << RedactUrl(to) << "\n";
  auto o = store::CopyRuns(**src, **dst, copy_runs);
  if (!o.ok()) return Fail("db copy", o.status());
  for (const auto& [a, b] : o->run_ids) std::cout << "run " << a << " -> " << b << "\n";
  // Rows the source's reader skipped as damaged (each named in a warning above) are not copied: said
  // per run, in the summary and by the exit status, never lost silently.
  for (const auto& sk : o->skipped)
    std::cerr << "frontier db copy: warning: run " << sk.run_id << " of " << EscapeControls(RedactUrl(from))
              << ": " << sk.points << " points rows and " << sk.requests
              << " requests rows were skipped as damaged (named above) and are not in the copy\n";
  std::cout << o->runs_created << " runs created, " << o->runs_matched << " already there; " << o->points_copied
            << " points copied, " << o->points_present << " already there";
  if (!o->skipped.empty())
    std::cout << "; " << o->points_skipped << " points rows and " << o->requests_skipped
              << " requests rows skipped as damaged";
  std::cout << "\n";
  if (!o->skipped.empty()) {
    std::cerr << "frontier db copy: the copy is incomplete: " << o->points_skipped << " points rows and "
              << o->requests_skipped << " requests rows of " << EscapeControls(RedactUrl(from))
              << " could not be read (exit 1)\n";
    return 1;
  }
  return 0;
}

// `db ls`: the runs with their point counts.
int DbList(store::Store& s, const std::string& db) {
  auto runs = s.ListRuns(store::Store::PlanText::kWithout);
  if (!runs.ok()) return Fail("db", runs.status());
  auto points = s.ListPoints(0);
  if (!points.ok()) return Fail("db", points.status());
  std::map<int64_t, int64_t> count;
  for (const auto& p : *points) ++count[p.run_id];
  report::TextTable t({"id", "run", "source", "status", "points", "hardware", "gpus", "created (UTC)"});
  for (const auto& r : *runs) {
    auto get = [&](const char* k) { return r.config.count(k) ? r.config.at(k) : std::string("-"); };
    t.Add({std::to_string(r.id), r.sweep + "/" + r.system, r.source, r.status.ToString(),
           std::to_string(count[r.id]), get("hardware"), get("gpus"), r.created_utc});
  }
  t.Print(std::cout, "");
  std::cout << runs->size() << " runs, " << points->size() << " points in " << RedactUrl(db) << " (schema "
            << s.SchemaVersion() << ")\n";
  return 0;
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
  auto st = store::OpenStore(db, imp->parsed() ? store::OpenMode::kCreate : store::OpenMode::kSnapshot);
  if (!st.ok()) return Fail(imp->parsed() ? "db import" : "db", st.status());
  store::Store& s = **st;
  if ((*st)->Created()) std::cerr << "frontier db import: created results database " << RedactUrl(db) << "\n";
  if (ls->parsed()) return DbList(s, db);
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
