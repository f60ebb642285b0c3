#include "store/schema.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/limits.h"
#include "core/parse.h"

namespace frontier::store {
namespace {

// Migrations, in order: entry i takes the schema from version i to i + 1.
// Never edit one that has shipped; append a new one.
const char* const kMigrations[] = {
    // 0 -> 1: runs, points, requests.
    R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(
  id {pk}, sweep TEXT NOT NULL, plan_hash TEXT NOT NULL, plan_text TEXT NOT NULL,
  system TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL, created_utc TEXT NOT NULL,
  config_json TEXT NOT NULL, provenance_json TEXT NOT NULL);
CREATE TABLE points(
  id {pk}, run_id {int} NOT NULL REFERENCES runs(id), point_key TEXT NOT NULL,
  workload TEXT NOT NULL, load_kind TEXT NOT NULL, load_value {real} NOT NULL,
  repetition {int} NOT NULL, source TEXT NOT NULL, attempts {int} NOT NULL,
  created_utc TEXT NOT NULL, settings_json TEXT NOT NULL, summary_json TEXT NOT NULL,
  num_gpus {int} NOT NULL, completed {int} NOT NULL, failed {int} NOT NULL,
  total_input_tokens {int} NOT NULL, total_output_tokens {int} NOT NULL,
  duration_s {real}, request_throughput {real}, output_throughput {real}, total_token_throughput {real},
  output_tput_per_gpu {real}, total_tput_per_gpu {real}, interactivity {real},
  mean_ttft_ms {real}, median_ttft_ms {real}, p99_ttft_ms {real},
  mean_tpot_ms {real}, median_tpot_ms {real}, p99_tpot_ms {real},
  mean_itl_ms {real}, median_itl_ms {real}, p99_itl_ms {real},
  mean_e2el_ms {real}, median_e2el_ms {real}, p99_e2el_ms {real},
  UNIQUE(run_id, point_key));
CREATE TABLE requests(
  point_id {int} NOT NULL REFERENCES points(id), idx {int} NOT NULL, ok {int} NOT NULL,
  warmup {int} NOT NULL, prompt_tokens {int}, output_tokens {int}, scheduled_ns {int},
  sent_ns {int}, first_token_ns {int}, end_ns {int}, events {int}, failure TEXT,
  http_status {int}, PRIMARY KEY(point_id, idx)){norowid};
)sql",
    // 1 -> 2: peak concurrency seen, and an index for resuming by plan.
    R"sql(
ALTER TABLE points ADD COLUMN max_concurrent_requests {real} NOT NULL DEFAULT 0;
CREATE INDEX runs_by_plan ON runs(sweep, plan_hash, system);
)sql",
    // 2 -> 3: servers launched by sweeps, so a later sweep can stop one whose sweep died.
    R"sql(
CREATE TABLE launches(
  id {pk}, system TEXT NOT NULL,
  host TEXT NOT NULL, boot_id TEXT NOT NULL, pgid {int} NOT NULL, marker TEXT NOT NULL,
  command TEXT NOT NULL, started_utc TEXT NOT NULL, stopped_utc TEXT);
)sql",
    // 3 -> 4: a point's MLPerf verdict and a search's decisions, NULL where there are none.
    // points.verdict is VALID or INVALID (for queries); points.verdict_json the whole verdict
    // (scenario, reasons, constraints, early-stopping estimates); points.trial_json a search
    // trial's step and decision; runs.search_json a search's answer and stop reason.
    R"sql(
ALTER TABLE points ADD COLUMN verdict TEXT;
ALTER TABLE points ADD COLUMN verdict_json TEXT;
ALTER TABLE points ADD COLUMN trial_json TEXT;
ALTER TABLE runs ADD COLUMN search_json TEXT;
)sql",
    // 4 -> 5: a point's series over time: the server's scraped metrics and the
    // per-window metrics (timeslices), as JSON; one row per point that has any.
    R"sql(
CREATE TABLE point_series(
  point_id {int} NOT NULL PRIMARY KEY REFERENCES points(id),
  server_metrics_json TEXT NOT NULL, timeslices_json TEXT NOT NULL);
)sql",
    // 5 -> 6: how sure a simulated point is (core/prediction_band.h), NULL for
    // a measured or imported point: the band's relative half width, the
    // calibrated results it rests on, their class, and the extrapolation
    // flags as a JSON array of strings. And measured energy over a point's
    // window (0: not measured, the TDP bound applies).
    R"sql(
ALTER TABLE points ADD COLUMN band_half_width {real};
ALTER TABLE points ADD COLUMN band_points {int};
ALTER TABLE points ADD COLUMN band_basis TEXT;
ALTER TABLE points ADD COLUMN band_flags TEXT;
ALTER TABLE points ADD COLUMN energy_j {real} NOT NULL DEFAULT 0;
ALTER TABLE points ADD COLUMN mean_power_w {real} NOT NULL DEFAULT 0;
ALTER TABLE points ADD COLUMN peak_power_w {real} NOT NULL DEFAULT 0;
ALTER TABLE points ADD COLUMN tokens_per_joule {real} NOT NULL DEFAULT 0;
)sql",
    // 6 -> 7: a plan's text once, not once per run: a 10,000-system sweep
    // stored its plan 10,000 times. runs.plan_key names the row of plans
    // (store/row_codec.h PlanKey); NULL for the runs written before.
    R"sql(
CREATE TABLE plans(plan_key TEXT PRIMARY KEY, plan_text TEXT NOT NULL);
ALTER TABLE runs ADD COLUMN plan_key TEXT;
)sql",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kSchemaVersion,
              "one migration per schema version");

struct Token {
  const char* name;
  const char* sqlite;
  const char* postgres;
};
// SQLite's renderings are the text the migrations were first shipped with.
const Token kTokens[] = {
    {"{pk}", "INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY"},
    {"{int}", "INTEGER", "BIGINT"},
    {"{real}", "REAL", "DOUBLE PRECISION"},
    {"{norowid}", " WITHOUT ROWID", ""},
};

const char* const kPointHead =
    "id, run_id, point_key, workload, load_kind, load_value, repetition, source, attempts, "
    "created_utc, settings_json, summary_json, num_gpus, completed, failed, total_input_tokens, "
    "total_output_tokens";

using metrics::Distribution;
using metrics::Summary;

// The SummaryField of each kind of column: a plain figure, a distribution's
// mean or median, its p99, a count kept as REAL, a measured-energy figure.
template <double Summary::*M>
constexpr SummaryField Plain() {
  return {[](const Summary& s) { return s.*M; }, [](Summary& s, double v) { s.*M = v; }};
}

template <Distribution Summary::*D, double Distribution::*F>
constexpr SummaryField Stat() {
  return {[](const Summary& s) { return s.*D.*F; }, [](Summary& s, double v) { s.*D.*F = v; }};
}

template <Distribution Summary::*D>
constexpr SummaryField P99Of() {
  return {[](const Summary& s) { return P99(s.*D); }, [](Summary& s, double v) { SetP99(s.*D, v); }};
}

// max_concurrent_requests is a count the points table has kept as REAL since
// schema version 2; a value no count can be (damaged) reads as -1, which
// CheckPoint refuses.
constexpr SummaryField PeakConcurrency() {
  return {[](const Summary& s) { return static_cast<double>(s.max_concurrent_requests); },
          [](Summary& s, double v) {
            s.max_concurrent_requests = std::isfinite(v) && std::fabs(v) < 9e18 ? std::llround(v) : -1;
          }};
}

// Energy is 0 in every column when none was measured; a non-zero one stored
// back means a measurement.
EnergyMeasurement& MeasuredEnergy(Summary& s) { return s.energy ? *s.energy : s.energy.emplace(); }

template <double EnergyMeasurement::*F>
constexpr SummaryField Energy() {
  return {[](const Summary& s) { return s.energy ? *s.energy.*F : 0.0; },
          [](Summary& s, double v) {
            if (v != 0 || s.energy) MeasuredEnergy(s).*F = v;
          }};
}

constexpr SummaryField TokensPerJoule() {
  return {[](const Summary& s) { return s.energy ? s.tokens_per_joule : 0.0; },
          [](Summary& s, double v) {
            if (v != 0) MeasuredEnergy(s);
            s.tokens_per_joule = v;
          }};
}

}  // namespace

// The points table's columns after num_gpus: these integers, then the
// doubles, in this order, which is also the order the export writes them in
// (its file format).
const IntColumn kIntColumns[] = {
    {"completed", &Summary::completed, bounds::kMaxRequests},
    {"failed", &Summary::failed, bounds::kMaxRequests},
    {"total_input_tokens", &Summary::total_input_tokens, bounds::kMaxTokens},
    {"total_output_tokens", &Summary::total_output_tokens, bounds::kMaxTokens},
};
const int kNumIntColumns = sizeof(kIntColumns) / sizeof(kIntColumns[0]);

// A latency distribution's three columns, named as vLLM names them
// (mean_ttft_ms, median_ttft_ms, p99_ttft_ms from `ttft`: Summary::ttft_ms),
// each bounded by kMaxLatencyMs.
#define FRONTIER_LATENCY_COLUMNS(D)                                                             \
  {"mean_" #D "_ms", Stat<&Summary::D##_ms, &Distribution::mean>(), bounds::kMaxLatencyMs},     \
  {"median_" #D "_ms", Stat<&Summary::D##_ms, &Distribution::median>(), bounds::kMaxLatencyMs}, \
  {"p99_" #D "_ms", P99Of<&Summary::D##_ms>(), bounds::kMaxLatencyMs}

const DoubleColumn kDoubleColumns[] = {
    {"duration_s", Plain<&Summary::duration_s>(), bounds::kMaxDurationS, 1, "duration"},
    {"request_throughput", Plain<&Summary::request_throughput>(), bounds::kMaxThroughput},
    {"output_throughput", Plain<&Summary::output_throughput>(), bounds::kMaxThroughput},
    {"total_token_throughput", Plain<&Summary::total_token_throughput>(), bounds::kMaxThroughput},
    {"output_tput_per_gpu", Plain<&Summary::output_throughput_per_gpu>(), bounds::kMaxThroughput},
    {"total_tput_per_gpu", Plain<&Summary::total_token_throughput_per_gpu>(), bounds::kMaxThroughput, 1,
     "tput_per_gpu"},
    {"interactivity", Plain<&Summary::interactivity>(), bounds::kMaxThroughput},
    FRONTIER_LATENCY_COLUMNS(ttft),
    FRONTIER_LATENCY_COLUMNS(tpot),
    FRONTIER_LATENCY_COLUMNS(itl),
    FRONTIER_LATENCY_COLUMNS(e2el),
    {"max_concurrent_requests", PeakConcurrency(), static_cast<double>(bounds::kMaxRequests), 2},
    {"energy_j", Energy<&EnergyMeasurement::joules>(), bounds::kMaxEnergyJ, kEnergyVersion},
    {"mean_power_w", Energy<&EnergyMeasurement::mean_w>(), bounds::kMaxPowerW, kEnergyVersion},
    {"peak_power_w", Energy<&EnergyMeasurement::peak_w>(), bounds::kMaxPowerW, kEnergyVersion},
    {"tokens_per_joule", TokensPerJoule(), bounds::kMaxTokensPerJoule, kEnergyVersion},
};
#undef FRONTIER_LATENCY_COLUMNS
const int kNumDoubleColumns = sizeof(kDoubleColumns) / sizeof(kDoubleColumns[0]);

const DoubleColumn* FindDoubleColumn(std::string_view name) {
  for (const DoubleColumn& c : kDoubleColumns)
    if (name == c.name) return &c;
  return nullptr;
}

std::string MigrationSql(int from, Dialect dialect) {
  std::string out = kMigrations[from];
  for (const Token& t : kTokens) {
    const std::string name = t.name, with = dialect == Dialect::kSqlite ? t.sqlite : t.postgres;
    for (size_t at = out.find(name); at != std::string::npos; at = out.find(name, at + with.size()))
      out.replace(at, name.size(), with);
  }
  return out;
}

std::string NumberPlaceholders(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?') {
      out += "$" + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

namespace sql {

std::string InsertRun(int version) {
  if (version < kVerdictVersion) {
    return "INSERT INTO runs(sweep, plan_hash, plan_text, system, source, status, created_utc, "
           "config_json, provenance_json) VALUES(?,?,?,?,?,?,?,?,?) RETURNING id";
  }
  if (version < kPlansVersion) {
    return "INSERT INTO runs(sweep, plan_hash, plan_text, system, source, status, created_utc, "
           "config_json, provenance_json, search_json) VALUES(?,?,?,?,?,?,?,?,?,NULLIF(?, '')) RETURNING id";
  }
  return "INSERT INTO runs(sweep, plan_hash, plan_text, system, source, status, created_utc, "
         "config_json, provenance_json, search_json, plan_key) VALUES(?,?,?,?,?,?,?,?,?,NULLIF(?, ''),?) "
         "RETURNING id";
}

std::string InsertPlan() {
  return "INSERT INTO plans(plan_key, plan_text) VALUES(?,?) ON CONFLICT(plan_key) DO NOTHING";
}

std::string SelectRuns(int version, const std::string& tail, bool with_plan_text) {
  const std::string text = !with_plan_text             ? "'' AS plan_text"
                           : version >= kPlansVersion
                               ? "COALESCE((SELECT plans.plan_text FROM plans WHERE plans.plan_key = runs.plan_key), "
                                 "runs.plan_text)"
                               : "plan_text";
  return "SELECT id, sweep, plan_hash, " + text + ", system, source, status, created_utc, config_json, " +
         "provenance_json, " +
         (version >= kVerdictVersion ? "search_json" : "NULL AS search_json") + " FROM runs " + tail;
}

std::string SetRunSearch() { return "UPDATE runs SET search_json = NULLIF(?, '') WHERE id = ?"; }

std::string SelectPoints(int version, const std::string& tail) {
  std::string s = std::string("SELECT ") + kPointHead;
  for (const auto& c : kDoubleColumns)
    s += version >= c.since ? std::string(", ") + c.name : std::string(", 0 AS ") + c.name;
  s += version >= kVerdictVersion ? ", verdict_json, trial_json" : ", NULL AS verdict_json, NULL AS trial_json";
  s += version >= kBandVersion
           ? ", band_half_width, band_points, band_basis, band_flags"
           : ", NULL AS band_half_width, NULL AS band_points, NULL AS band_basis, NULL AS band_flags";
  return s + " FROM points " + tail;
}

std::string InsertPoint(int version) {
  std::string s = "INSERT INTO points(" + std::string(kPointHead).substr(4);  // without "id, "
  std::string values = "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?";
  for (const auto& c : kDoubleColumns) {
    if (version < c.since) continue;
    s += std::string(", ") + c.name;
    values += ",?";
  }
  if (version >= kVerdictVersion) {
    // An empty text is stored as NULL: no verdict, not a search trial.
    s += ", verdict, verdict_json, trial_json";
    values += ",NULLIF(?, ''),NULLIF(?, ''),NULLIF(?, '')";
  }
  if (version >= kBandVersion) {
    // A point without a band (measured, imported) stores NULL in all four.
    s += ", band_half_width, band_points, band_basis, band_flags";
    values += ",NULLIF(?, -1.0),NULLIF(?, -1),NULLIF(?, ''),NULLIF(?, '')";
  }
  return s + ") VALUES(" + values + ") RETURNING id";
}

std::string InsertRequests(int rows) {
  std::string s =
      "INSERT INTO requests(point_id, idx, ok, warmup, prompt_tokens, output_tokens, scheduled_ns, "
      "sent_ns, first_token_ns, end_ns, events, failure, http_status) VALUES";
  for (int i = 0; i < rows; ++i) s += i == 0 ? "(?,?,?,?,?,?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?,?,?,?,?,?)";
  return s;
}

std::string SelectRequests() {
  return "SELECT idx, ok, warmup, prompt_tokens, output_tokens, scheduled_ns, sent_ns, "
         "first_token_ns, end_ns, events, failure, http_status FROM requests WHERE point_id = ? "
         "ORDER BY idx";
}

std::string SetRunStatus() { return "UPDATE runs SET status = ? WHERE id = ?"; }

std::string SelectPointKeys() { return "SELECT point_key FROM points WHERE run_id = ?"; }

std::string InsertPointSeries() {
  return "INSERT INTO point_series(point_id, server_metrics_json, timeslices_json) VALUES(?,?,?)";
}

std::string SelectPointSeries() {
  return "SELECT server_metrics_json, timeslices_json FROM point_series WHERE point_id = ?";
}

std::string SetLaunchStopped() { return "UPDATE launches SET stopped_utc = ? WHERE id = ?"; }

std::string InsertLaunch() {
  return "INSERT INTO launches(system, host, boot_id, pgid, marker, command, started_utc) "
         "VALUES(?,?,?,?,?,?,?) RETURNING id";
}

std::string SelectOpenLaunches() {
  return "SELECT id, system, host, boot_id, pgid, marker, command, started_utc FROM launches "
         "WHERE stopped_utc IS NULL ORDER BY id";
}

std::string SetSchemaVersion() {
  // An upsert both back ends understand (SQLite >= 3.24).
  return "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
         "ON CONFLICT(key) DO UPDATE SET value = excluded.value";
}

}  // namespace sql

Result<int> ParseSchemaVersion(const std::string& location, const std::string& text) {
  Result<int64_t> v = ParseInt("meta.schema_version", text, std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max());
  if (v.ok() && *v > kSchemaVersion) {
    return FailedPrecondition(location + " has schema version " + text + ", newer than this frontier's " +
                              std::to_string(kSchemaVersion) + "; use a newer frontier to read it");
  }
  if (!v.ok() || *v < 1) {
    return InvalidArgument(location + ": meta.schema_version must be an integer in [1, " +
                           std::to_string(kSchemaVersion) + "], got '" + text.substr(0, 40) +
                           "'; the database is damaged or was not written by frontier");
  }
  return static_cast<int>(*v);
}

std::string MapToJson(const std::map<std::string, std::string>& m) { return nlohmann::json(m).dump(); }

std::map<std::string, std::string> JsonToMap(const std::string& text) {
  std::map<std::string, std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

}  // namespace frontier::store
