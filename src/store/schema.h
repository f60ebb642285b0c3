// schema.h: the results database's schema, migrations and statements, once
// for every back end (SQLite, PostgreSQL).
//
// A migration is SQL written with a few dialect tokens, rendered for a back
// end by MigrationSql():
//   {pk}    the auto-assigned 64-bit row id   INTEGER PRIMARY KEY | BIGSERIAL PRIMARY KEY
//   {int}   a 64-bit integer column            INTEGER             | BIGINT
//   {real}  a 64-bit floating-point column     REAL                | DOUBLE PRECISION
//   {norowid}  SQLite's WITHOUT ROWID table    WITHOUT ROWID       | (nothing)
// Statements are written with `?` placeholders; the PostgreSQL back end
// numbers them ($1, $2, ...) with NumberPlaceholders().
//
// Adding a schema version: append one entry to kMigrations in schema.cc (never
// edit one that has shipped), raise kSchemaVersion, and give new columns a
// `since` so an older database opened read-only reads them as 0.
//
// Thread safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "store/records.h"

namespace frontier::store {

// The schema version this build writes.
inline constexpr int kSchemaVersion = 7;
// The version that added the launches table (servers a sweep started).
inline constexpr int kLaunchesVersion = 3;
// The version that added points.verdict, verdict_json, trial_json and runs.search_json.
inline constexpr int kVerdictVersion = 4;
// The version that added the point_series table.
inline constexpr int kSeriesVersion = 5;
// The version that added a simulated point's prediction band (points.band_*)
// and the measured-energy columns (energy_j, mean_power_w, peak_power_w,
// tokens_per_joule).
inline constexpr int kBandVersion = 6;
// The version that keeps each plan text once, in the plans table, keyed by
// PlanKey(text): runs.plan_key names it and runs.plan_text is left empty
// (a run of an older version keeps its text in runs.plan_text).
inline constexpr int kPlansVersion = 7;
inline constexpr int kEnergyVersion = 6;

enum class Dialect { kSqlite, kPostgres };

// The SQL that takes a database from schema version `from` to `from + 1`
// (0 <= from < kSchemaVersion), rendered for `dialect`.
std::string MigrationSql(int from, Dialect dialect);

// `sql` with its `?` placeholders numbered $1, $2, ... (PostgreSQL's form).
// The statements of this file hold no `?` inside a string literal.
std::string NumberPlaceholders(const std::string& sql);

// Where a column's figure lives in metrics::Summary: `get` reads it as the
// column keeps it (a p99 the summary did not compute, and energy not
// measured, read as 0), `set` puts a stored value back.
struct SummaryField {
  double (*get)(const metrics::Summary&);
  void (*set)(metrics::Summary&, double);
};

// The REAL metric columns of a point: the one list the database's statements,
// the row codec, CheckPoint's bounds and `db export` / `db import` all read.
struct DoubleColumn {
  const char* name;               // the column
  SummaryField field;             // where it lives in PointRecord::metrics
  double max;                     // its upper bound (CheckPoint); the lower is 0
  int since = 1;                  // the schema version that added it (read as 0 before)
  // The key `db export` writes it under and `db import` reads it by, where
  // that differs from `name`: export files named two figures as vLLM and
  // InferenceX do (duration, tput_per_gpu) before the columns had their
  // names, and files users hold keep those keys. nullptr: `name`.
  const char* export_name = nullptr;
  const char* ExportName() const { return export_name != nullptr ? export_name : name; }
  double Get(const metrics::Summary& s) const { return field.get(s); }
  void Set(metrics::Summary& s, double v) const { field.set(s, v); }
};
extern const DoubleColumn kDoubleColumns[];
extern const int kNumDoubleColumns;
// The column of kDoubleColumns named `name`; nullptr when there is none.
const DoubleColumn* FindDoubleColumn(std::string_view name);

// The INTEGER count columns of a point after num_gpus (which PointRecord
// keeps itself), in the table's order; each in [0, max].
struct IntColumn {
  const char* name;
  int64_t metrics::Summary::*member;
  int64_t max;
};
extern const IntColumn kIntColumns[];
extern const int kNumIntColumns;

namespace sql {
// Stores a run into a database of `version`: 9 parameters (sweep, plan_hash,
// plan_text, system, source, status, created_utc, config_json,
// provenance_json), then search_json from kVerdictVersion; returns its id.
std::string InsertRun(int version);
// Stores a plan text once (plan_key, plan_text); a key already there is left
// as it is. From kPlansVersion; run before InsertRun.
std::string InsertPlan();
// Every column of runs, in RunInfo's order (search_json reads as NULL before
// kVerdictVersion; plan_text as '' unless `with_plan_text`), then `tail`
// (WHERE ..., ORDER BY ...).
std::string SelectRuns(int version, const std::string& tail, bool with_plan_text = true);
// Sets runs.search_json (search_json, run id); "" stores NULL.
std::string SetRunSearch();
// Every point column a database of `version` holds (later ones read as 0 or
// NULL), then `tail`. Columns: id, run_id, point_key, ... total_output_tokens,
// then kDoubleColumns, then verdict_json, trial_json, then band_half_width,
// band_points, band_basis, band_flags (NULL for a point without a band).
std::string SelectPoints(int version, const std::string& tail);
// Stores a point into a database of `version`: 16 parameters, one per
// kDoubleColumns entry that version has, then (from kVerdictVersion) verdict,
// verdict_json and trial_json, each "" for NULL, then (from kBandVersion)
// band_half_width and band_points (-1 for NULL), band_basis and band_flags
// ("" for NULL); returns its id.
std::string InsertPoint(int version);
// Stores `rows` requests: 13 parameters per row.
std::string InsertRequests(int rows);
// The requests of one point (1 parameter), by index.
std::string SelectRequests();
// A point's series (3 parameters: point id, server_metrics_json,
// timeslices_json), and the series of one point (1 parameter). Version >= 5.
std::string InsertPointSeries();
std::string SelectPointSeries();
std::string SetRunStatus();       // (status, run id)
std::string SelectPointKeys();    // (run id)
std::string InsertLaunch();  // 7 parameters; returns its id
std::string SetLaunchStopped();   // (stopped_utc, launch id)
std::string SelectOpenLaunches();
// Sets meta.schema_version (1 parameter, the version as text).
std::string SetSchemaVersion();
}  // namespace sql

// The schema version stored as `text` in meta.schema_version of the database
// at `location`: InvalidArgument unless an integer in [1, kSchemaVersion];
// FailedPrecondition when newer than this build.
Result<int> ParseSchemaVersion(const std::string& location, const std::string& text);

// JSON text of a string map, and back ("{}"-like garbage reads as empty).
std::string MapToJson(const std::map<std::string, std::string>& m);
std::map<std::string, std::string> JsonToMap(const std::string& text);

}  // namespace frontier::store
