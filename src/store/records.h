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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"

namespace frontier::store {

// The physical range of every number the store keeps, checked where a number
// comes in from outside (an imported file, a database row): wider than any
// real system, narrow enough that sums and ratios of them stay finite.
// docs/limits.md lists them.
namespace bounds {
inline constexpr int64_t kMaxGpus = 1'000'000;
inline constexpr int64_t kMaxRequests = 1'000'000'000'000;         // per point
inline constexpr int64_t kMaxTokens = 1'000'000'000'000'000;       // per point, input or output
inline constexpr int64_t kMaxRequestTokens = std::numeric_limits<int32_t>::max();  // one request
inline constexpr double kMaxThroughput = 1e9;     // tokens or requests per second
inline constexpr double kMaxLatencyMs = 1e9;      // about 11.6 days
inline constexpr double kMaxDurationS = 1e9;
inline constexpr double kMaxConcurrency = 1e7;    // load value of a concurrency point
inline constexpr double kMaxRequestRate = 1e9;    // load value of a finite request-rate point
inline constexpr double kInfiniteRate = 1e300;    // load value of request_rate=inf (SQLite has no inf)
inline constexpr int64_t kMaxRepetition = 1'000'000;
inline constexpr int64_t kMaxAttempts = 1'000;
}  // namespace bounds

// Where a point's numbers came from. Stable strings: they are stored.
namespace source {
inline constexpr const char* kMeasured = "measured";
inline constexpr const char* kSimulated = "simulated";
inline constexpr const char* kImported = "imported";
}  // namespace source

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
  std::string source;             // source:: of its points
  SystemStatus status;            // ok, or broken with the reason
  std::string created_utc;        // ISO-8601
  // The system's configuration (hardware, gpus, model, engine, precision, tp, ...).
  std::map<std::string, std::string> config;
  // Who/what/where: frontier version, host, command line, source file, ...
  std::map<std::string, std::string> provenance;

  // "<sweep>/<system>#<id>", the name reports and `db ls` show.
  std::string Label() const;
};

// The summary metrics the store keeps as columns (everything else of a
// Summary is kept as JSON beside them). Latencies in ms, throughputs in
// tokens or requests per second.
struct PointMetrics {
  int num_gpus = 1;
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t total_input_tokens = 0;
  int64_t total_output_tokens = 0;
  double duration_s = 0;
  double request_throughput = 0;
  double output_throughput = 0;
  double total_token_throughput = 0;
  double output_tput_per_gpu = 0;
  double total_tput_per_gpu = 0;
  double interactivity = 0;          // tok/s/user = 1000 / median TPOT
  double mean_ttft_ms = 0, median_ttft_ms = 0, p99_ttft_ms = 0;
  double mean_tpot_ms = 0, median_tpot_ms = 0, p99_tpot_ms = 0;
  double mean_itl_ms = 0, median_itl_ms = 0, p99_itl_ms = 0;
  double mean_e2el_ms = 0, median_e2el_ms = 0, p99_e2el_ms = 0;
  double max_concurrent_requests = 0;
};

// The metrics of a summary (p99 is 0 when the summary did not compute it).
PointMetrics MetricsFromSummary(const metrics::Summary& s, int num_gpus);

// A point's series over time, as JSON text ("" when it has none): the
// server's scraped metrics (metrics::ServerMetricsToJson) and its per-window
// metrics with the steady span (metrics::TimeslicesToJson). Kept in their own
// table (schema version 4), read with Store::GetPointSeries.
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
  std::string load_kind = "concurrency";  // "concurrency" or "request_rate"
  double load_value = 0;
  int repetition = 0;             // 0-based
  std::string source;             // source::
  int attempts = 1;               // 2 when the first attempt failed and the retry succeeded
  std::string created_utc;
  // Settings that identify the configuration (tp, ep, precision, isl, osl, num_prompts, ...).
  std::map<std::string, std::string> settings;
  PointMetrics metrics;
  std::string summary_json;       // the full summary, vLLM-named, as JSON text ("" if none)
  // Stored by AddPoint (version >= 4); ListPoints leaves it empty: GetPointSeries reads it.
  PointSeries series;
};

// The identity of a point within its run, e.g. "1k1k|concurrency=16|rep=0".
std::string PointKey(const std::string& workload, const std::string& load_kind,
                     double load_value, int repetition);

// The summary as a JSON object with vLLM's result keys (mean_ttft_ms, ...).
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

// OK when every number of the point (or row) is within `bounds`; else
// InvalidArgument "<where>: <field> must be ... in [min, max], got <value>".
Status CheckPoint(const PointRecord& point, const std::string& where);
Status CheckRequestRow(const RequestRow& row, const std::string& where);

}  // namespace frontier::store
