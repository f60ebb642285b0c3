// records.h: what the results store keeps, independent of its back end.
//
// A run is one system measured (or simulated, or imported) in one sweep; a
// point is one (workload, load, repetition) of a run with its summary
// metrics; requests are the per-request records a point was summarised from.
// Measured, simulated and imported points are the same record, told apart by
// `source`.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/limits.h"
#include "core/prediction_band.h"
#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"
#include "store/kinds.h"
#include "metrics/verdict_label.h"

namespace frontier::store {

// The physical range of every number the store keeps (core/limits.h),
// checked where a number comes in from outside (an imported file, a database row).
namespace bounds = frontier::bounds;

// A system's status in its run: ok, or broken with the reason (its server
// would not start, a point failed twice, ...). Stored as "ok" or
// "broken: <reason>" (ToString / ParseSystemStatus, at the store's edges).
struct SystemStatus {
  enum class State { kOk, kBroken };
  State state = State::kOk;
  std::string reason;  // when broken

  static SystemStatus Broken(std::string why) { return {State::kBroken, std::move(why)}; }
  bool ok() const { return state == State::kOk; }
  std::string ToString() const { return ok() ? "ok" : "broken: " + reason; }
  bool operator==(const SystemStatus&) const = default;
};

// The inverse of SystemStatus::ToString; other text (none is written) is
// broken with the text as its reason.
SystemStatus ParseSystemStatus(std::string_view text);

struct RunInfo {
  int64_t id = 0;                 // assigned by the store
  std::string sweep;              // plan name, or "import" for imported files
  std::string plan_hash;          // hash of the plan text (resume matches on it); "" for imports
  std::string plan_text;          // the plan file as read, for provenance
  std::string system;             // system name within the plan
  Source source = Source::kMeasured;  // of its points
  SystemStatus status;            // ok, or broken with the reason
  std::string created_utc;        // ISO-8601
  // The system's configuration (hardware, gpus, model, engine, precision, tp, ...).
  std::map<std::string, std::string> config;
  // Who/what/where: frontier version, host, command line, source file, ...
  std::map<std::string, std::string> provenance;
  // A search run's outcome as JSON text (goal, axis, rules, answer,
  // max_valid_qps, stop_reason, bracket, trial_count); "" for other runs.
  std::string search_json;

  // "<sweep>/<system>#<id>", the name reports and `db ls` show.
  std::string Label() const;
};

// The provenance every stored run of a command carries: frontier_version,
// command_line (as given: core/redact.h's CommandLine), host and
// started_utc (now). bench, simulate, search, sweep and probe start from it
// (a sweep's runner adds its plan's plan_file and, for a grid,
// planned_points).
std::map<std::string, std::string> RunProvenance(const std::string& command_line);

// A distribution's p99 as the points table keeps it (0 when the summary did
// not compute it), and back.
double P99(const metrics::Distribution& d);
void SetP99(metrics::Distribution& d, double value);

// A point's series over time, as JSON text ("" when it has none): the
// server's scraped metrics (metrics::ServerMetricsToJson) and its per-window
// metrics with the steady span (metrics::TimeslicesToJson). Kept in their own
// table (schema version 5), read with Store::GetPointSeries.
struct PointSeries {
  std::string server_metrics_json;
  std::string timeslices_json;
  bool empty() const { return server_metrics_json.empty() && timeslices_json.empty(); }
};

// The series of a run as a point keeps them (ServerMetricsToJson and
// TimeslicesToJson of the summary's timeslices; "" for what the run lacks).
PointSeries SeriesFromRun(const RunResult& run, const metrics::Summary& summary);

struct PointRecord {
  int64_t id = 0;                 // assigned by the store
  int64_t run_id = 0;
  std::string key;                // unique within its run: see PointKey()
  std::string workload;           // workload name from the plan (or "<isl>/<osl>" for imports)
  LoadKind load_kind = LoadKind::kConcurrency;  // what load_value is (kinds.h)
  double load_value = 0;
  int repetition = 0;             // 0-based
  Source source = Source::kMeasured;
  int attempts = 1;               // 2 when the first attempt failed and the retry succeeded
  std::string created_utc;
  // Settings that identify the configuration (tp, ep, precision, isl, osl, num_prompts, ...).
  std::map<std::string, std::string> settings;
  int num_gpus = 1;               // the GPUs its per-GPU throughputs divide by
  // The point's summary metrics, latencies in ms, throughputs in tokens or
  // requests per second. The store keeps the figures of schema.h's
  // kIntColumns and kDoubleColumns as columns: a point read back has those
  // (a p99 as its only percentile, energy only when measured) and everything
  // else of the summary in summary_json.
  ::frontier::metrics::Summary metrics;
  // The full summary, vLLM-named, as JSON text ("" if none): SummaryToJson for
  // a point frontier ran; an imported result's own number and string fields.
  std::string summary_json;
  // The point's MLPerf verdict as JSON text (loadgen's VerdictJson: result
  // VALID|INVALID, reasons, scenario, constraints with their early-stopping
  // estimates); "" when the point was not judged.
  std::string verdict_json;
  // A search trial's place in its search as JSON text ({"index", "value",
  // "valid", "step", "decision", "stopped_early"}); "" when the point is not a
  // trial. The search's answer is its run's search_json.
  std::string trial_json;
  // Stored by AddPoint (version >= 4); ListPoints leaves it empty: GetPointSeries reads it.
  PointSeries series;
  // How sure a simulated point is (RunResult::band); none for a measured or
  // imported point, or one stored before schema version 6.
  std::optional<PredictionBand> band;
};

// What a report shows of a point's verdict.
struct VerdictView {
  bool judged = false;            // the point has a verdict
  bool valid = false;
  std::string scenario;           // "Server", ... ("" for an SLO without a scenario)
  std::string first_reason;       // "" when valid
  // metrics::VerdictLabel(valid), or "" when not judged.
  std::string Label() const { return judged ? metrics::VerdictLabel(valid) : ""; }
};
// The view of `verdict_json` ("" reads as not judged). InvalidArgument naming
// the field unless it is a JSON object whose "result" is VALID or INVALID and
// whose "reasons", when present, is an array of strings.
Result<VerdictView> ParseVerdict(const std::string& verdict_json);

// A search trial's place in its search (PointRecord::trial_json).
struct TrialView {
  bool is_trial = false;
  int64_t index = 0;
  std::string step;               // "bracket", "bisect" or "stop"
  std::string decision;           // what the search did next, and why
};
// The view of `trial_json` ("" reads as not a trial); InvalidArgument unless an
// object with an integer "index".
Result<TrialView> ParseTrial(const std::string& trial_json);

// The identity of a point within its run, e.g. "1k1k|concurrency=16|rep=0".
// The load is written as printf's %g (6 significant digits), as keys have
// always been, or with as many more digits as it takes to read back as
// exactly `load_value` ("concurrency=2500001", not the 2.5e+06 that
// 2500002 would share), so two loads never share a key.
std::string PointKey(const std::string& workload, LoadKind load_kind, double load_value, int repetition);

// Sets p's load_kind and load_value from a point's load: kRequestRate and the
// rate when it is finite (a cap on concurrency beside it limits an open loop,
// as a plan's max_concurrency does its request_rate points); else
// kConcurrency and the cap when there is one; else kRequestRate at
// bounds::kInfiniteRate (all at once, or no rate known), so that it sorts last
// (the store keeps no infinity). One rule for a command's points and an
// imported vLLM result's, and the plan's: the same load gets the same key.
void SetPointLoad(std::optional<int64_t> max_concurrency, std::optional<double> request_rate, PointRecord* p);

// The text a point keeps as its summary_json: metrics::SummaryToJson, the
// summary's keys exactly as the result file writes them (vLLM's names:
// mean_ttft_ms, ...), as compact JSON.
std::string SummaryToJson(const metrics::Summary& s);

// One stored request: the scalars of a RequestRecord (token events are
// summarised to their count; they are not stored).
struct RequestRow {
  int64_t idx = 0;                // position in the run's request list
  bool ok = false;
  bool warmup = false;
  int32_t prompt_tokens = 0;
  int32_t output_tokens = 0;
  Nanos scheduled_ns = 0, sent_ns = 0, first_token_ns = -1, end_ns = -1;
  int32_t events = 0;
  std::string failure;
  int http_status = 0;
};

std::vector<RequestRow> RowsFromRun(const RunResult& run);

// The requests of stored rows as a run's, for the metrics that read a
// RunResult (metrics::ComputeTimeslices). Token events are not stored, so each
// request has none: its output tokens count at its end. A row whose failure is
// failure::kCancelled is cancelled.
RunResult RunFromRows(const std::vector<RequestRow>& rows);

// The point a run (measured or simulated) is stored as, whoever ran it
// (sweep::StoredPoint starts every point `frontier sweep`, `bench --db` and
// `simulate --db` store from it): source from run.source,
// settings from its effective settings, `num_gpus` (what the summary's per-GPU
// throughputs were divided by), metrics, summary JSON and series from
// `summary`. The caller sets what only it knows: key, workload, load_kind,
// load_value, repetition, attempts, verdict_json.
PointRecord PointFromRun(const RunResult& run, const metrics::Summary& summary, int num_gpus);

// A band's flags as the store keeps them (a JSON array of strings), and back:
// InvalidArgument unless `text` is such an array.
std::string BandFlagsToJson(const std::vector<std::string>& flags);
Result<std::vector<std::string>> BandFlagsFromJson(const std::string& text);

// OK when every number of the point (or row) is within `bounds` (its band's
// half width in [0, metrics::kMaxBandHalfWidth]) and its verdict and trial
// texts parse; else InvalidArgument "<where>: <field> must
// be ... in [min, max], got <value>".
Status CheckPoint(const PointRecord& point, const std::string& where);
Status CheckRequestRow(const RequestRow& row, const std::string& where);
// What every writer of the store checks before a point is stored: CheckPoint
// (the bounds the readers apply, the verdict and trial texts) and
// CheckRequestRow for each request; the error names the point (its key) and
// the request (its index).
Status CheckPointForStore(const PointRecord& point, const std::vector<RequestRow>& requests);
// OK when the point's verdict_json and trial_json parse (ParseVerdict,
// ParseTrial) and its band is within its bounds; else their InvalidArgument,
// naming the point's key. Every
// back end's AddPoint checks this before it writes.
Status CheckVerdictAndTrial(const PointRecord& point);

}  // namespace frontier::store
