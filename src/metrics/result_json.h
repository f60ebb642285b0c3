// result_json.h: a run's result file (--result-json) and its per-request
// records (--requests-jsonl).
//
// Result JSON: vLLM's serving-benchmark field names at the top level, so a
// tool that reads `vllm bench serve --save-result` files reads frontier's:
//   completed, failed, total_input_tokens, total_output_tokens, duration,
//   request_throughput, request_goodput, output_throughput,
//   total_token_throughput, max_concurrent_requests,
//   {mean,median,std,p<P>}_{ttft,tpot,itl,e2el}_ms, date, backend, model_id,
//   num_prompts, request_rate, burstiness, max_concurrency
// plus frontier's own metrics under names in the same style:
//   {mean,median,std,p<P>}_{icl,client_queue_time}_ms, interactivity,
//   output_throughput_per_gpu, total_token_throughput_per_gpu, num_gpus,
//   warmup_requests, failures_by_reason {code: count}, usage_from_server,
//   and, only when they apply: cancelled (requests the client cancelled),
//   ideal_prefix_hit_rate with ideal_hit_block_tokens, and for session
//   workloads sessions_completed, sessions_failed, session_end_reasons
//   {reason: count}, {mean,median,std,p<P>}_{turn_ttft,turn_e2el,session_latency}_ms;
//   steady_output_throughput and steady_request_throughput (null when the
//   run has no steady span) and "timeslices" (TimeslicesToJson, when the
//   run has a window; metrics/timeslice.h), and when energy was measured
//   tokens_per_joule, output_tokens_per_joule and "energy" (EnergyToJson),
// and a versioned "frontier" object with the run's provenance:
//   {"format_version": kResultFormatVersion, "version", "command_line",
//    "source": "measured"|"simulated", "base_url", "endpoint", "model",
//    "served_model", "start_time_utc", "host", "num_gpus", "percentiles",
//    "requested_settings": {...}, "effective_settings": {...}, "interrupted"}.
// When the run carries the server's own metrics (RunResult::server_metrics),
// "server_metrics": {"source", "kind", "prefix_cache_queries",
// "prefix_cache_hits", "prefix_cache_hit_rate" (null when unknown),
// "scrapes", "scrape_failures", "last_error"?, "samples": {"t_s": [...],
// "<series>": [...], ...}} (ServerMetricsToJson).
// A simulated run that carries its prediction band (RunResult::band) has, at
// the top level, "band_half_width" (relative: 0.12 is +/-12%), "band_points",
// "band_basis" and "band_flags" [...] (BandToJson); a measured run has none.
// An infinite request rate is written as the string "inf" (JSON has no infinity).
//
// Both ways live here: ResultToJson writes the keys and ReadResultDocument
// reads them back (frontier's files and vLLM's), with the bounds of every
// figure; the store's importer and every other reader of such files use it.
// The summary's own keys are written by SummaryToJson alone: the result file
// embeds them and the store keeps them as a point's summary, so a stored
// point and its result file carry the same keys with the same values. The
// load's keys are written by ResultLoadToJson from values the load generator
// passes.
//
// Request records: one JSON object a line, keys as in RequestRecord, times in
// ns relative to the run's start; "events" is [[t_ns, tokens], ...].
//
// Thread safety: functions are pure or touch only their own file;
// RequestJsonlWriter is not thread-safe (one writer thread).
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"

namespace frontier::metrics {

// The summary's keys of a result document: every key above that comes from
// the Summary alone (vLLM's figures, frontier's own metrics, the optional
// cancelled / prefix / session keys and steady_*_throughput), that is all
// but date, model_id, num_gpus, "timeslices" (kept by the store in its own
// table), the load's and other extra fields, "frontier" and "server_metrics".
nlohmann::json SummaryToJson(const Summary& summary);

// One latency metric's statistics as a summary JSON holds them (the keys
// SummaryToJson writes: mean_<m>_ms, std_<m>_ms, median_<m>_ms,
// p<P>_<m>_ms), in display order: mean, std, then median and the
// percentiles by P (median before p50). Only keys present with a numeric
// value; none for a metric the summary does not hold. Total: never throws.
//   LatencyStats(j, "ttft")  // {{"mean", 75}, {"std", 5}, {"median", 74}, {"p99", 90}}
std::vector<std::pair<std::string, double>> LatencyStats(const nlohmann::json& summary, const std::string& metric);

// The load a run was driven with, as vLLM's descriptive fields. Plain values
// so that metrics needs no workload types; loadgen fills it from its
// LoadOptions (loadgen/point.h).
struct ResultLoad {
  double request_rate = std::numeric_limits<double>::infinity();  // req/s; inf = all at once
  double burstiness = 1.0;                                         // Gamma shape; 1 = Poisson
  std::optional<int64_t> max_concurrency;                          // unset: no cap
  std::optional<int64_t> num_prompts;                              // unset: bounded by duration only
};

// {"request_rate": r | "inf", "burstiness": b, "max_concurrency": n | null,
//  "num_prompts": n | null}: the keys ReadResultDocument reads back into
// request_rate, max_concurrency, num_prompts and settings.
nlohmann::json ResultLoadToJson(const ResultLoad& load);

// The whole result document: SummaryToJson, the run's keys and provenance.
// `extra_top_level` (may be null) is merged into the top level for vLLM's
// descriptive fields the RunResult does not carry (backend, and the load's
// fields: ResultLoadToJson).
nlohmann::json ResultToJson(const RunResult& run, const Summary& summary,
                            const SummaryOptions& options,
                            const nlohmann::json* extra_top_level = nullptr);

// The "energy" object: {"source", "label": "measured (<source>)", "method",
// "joules", "mean_power_w", "peak_power_w", "window_s", "samples",
// "interval_s", "devices": [{"name", "joules", "mean_power_w",
// "peak_power_w"}]}, and its reader (bounds of core/limits.h; InvalidArgument
// naming `where` and the field).
nlohmann::json EnergyToJson(const EnergyMeasurement& e);
Result<EnergyMeasurement> EnergyFromJson(const nlohmann::json& j, const std::string& where);

// The "server_metrics" object above: samples as columns over "t_s" (seconds
// from the run's start), null where a scrape lacked a series.
nlohmann::json ServerMetricsToJson(const ServerMetrics& m);

// The four band keys above as an object, to merge into a document.
nlohmann::json BandToJson(const PredictionBand& band);
// The band keys of `doc` (JsonFields's messages name `where`): nullopt when it
// has no "band_half_width"; InvalidArgument naming the field when one is out
// of its bounds (half width in [0, kMaxBandHalfWidth], points in
// [0, kMaxBandPoints]) or band_flags is not an array of strings.
inline constexpr double kMaxBandHalfWidth = 100;
inline constexpr int64_t kMaxBandPoints = 1000000;
Result<std::optional<PredictionBand>> ReadBand(const nlohmann::json& doc, const std::string& where);

// Writes ResultToJson(...) to `path` atomically (core/atomic_file.h).
Status WriteResultJson(const std::string& path, const RunResult& run, const Summary& summary,
                       const SummaryOptions& options,
                       const nlohmann::json* extra_top_level = nullptr);

// Reading a result back. One reader for frontier's result files and for
// `vllm bench serve --save-result` files (the same keys): every figure is
// checked against core/limits.h's bounds, so a hostile or broken file is an
// InvalidArgument naming `where`, the field, the value and the allowed range
// ("v.json: mean_ttft_ms must be a number in [0, 1000000000], got 'fast'"),
// never a crash or a silent 0. A field a file lacks stays at its default;
// "completed", "output_throughput" and "total_token_throughput" are required.
// Percentiles are recovered from every p<P>_<metric>_ms key. "failed" is the
// file's, else num_prompts - completed when num_prompts is given (and
// completed > num_prompts is refused as a contradiction). Interactivity is
// the file's, else 1000 / median TPOT; per-GPU throughputs the file's, else
// the throughput over its num_gpus (1 when absent).

// One request of a result's per-request lists (vLLM's --save-detailed:
// ttfts, itls, input_lens, output_lens, errors), times in seconds from the
// request's send. A request with ttft 0 failed.
struct ResultRequest {
  int64_t input_len = 0;   // 0 when the file has no input_lens
  int64_t output_len = 0;  // 0 when the file has no output_lens
  double ttft_s = 0;
  double end_s = 0;        // ttft + the sum of its itls
  int32_t chunks = 0;      // content events: 1 + its itls entries; 0 when failed
};

struct ResultDocument {
  Summary summary;
  std::string model_id, backend, date;
  std::optional<int64_t> num_prompts;
  std::optional<int64_t> max_concurrency;
  std::optional<double> request_rate;  // +infinity for "inf"
  std::optional<double> burstiness;
  // The load's descriptive fields as the file wrote them (num_prompts,
  // request_rate, burstiness, max_concurrency, tokenizer_id), when present.
  std::map<std::string, std::string> settings;
  std::vector<ResultRequest> requests;  // empty without "ttfts"
  bool has_errors = false;              // the file has an "errors" list
  std::optional<PredictionBand> band;   // a simulated run's band (ReadBand)
};

// The hint a missing required field's message ends with.
inline constexpr const char* kResultHint = "is this a `vllm bench serve` result?";

// The document as above. Total: any JSON value is read or refused (anything
// but an object is an InvalidArgument), never a throw.
Result<ResultDocument> ReadResultDocument(const nlohmann::json& doc, const std::string& where);

// ReadResultDocument(doc, where)'s summary.
Result<Summary> SummaryFromResultJson(const nlohmann::json& doc, const std::string& where);

// Reads and parses a result file; then as SummaryFromResultJson.
Result<Summary> ReadResultSummary(const std::string& path);

// One request as a JSON object / as one line without the newline.
nlohmann::json RequestRecordToJson(const RequestRecord& record);
std::string RequestRecordToJsonLine(const RequestRecord& record);
// The inverse of RequestRecordToJson. InvalidArgument naming the field.
Result<RequestRecord> RequestRecordFromJson(const nlohmann::json& j);

// Appends one line per record to a file, flushed after each record so a crash
// or Ctrl-C keeps every request that ended.
class RequestJsonlWriter {
 public:
  RequestJsonlWriter() = default;
  ~RequestJsonlWriter();
  RequestJsonlWriter(const RequestJsonlWriter&) = delete;
  RequestJsonlWriter& operator=(const RequestJsonlWriter&) = delete;

  // Creates or truncates `path`. IoError naming the path on failure.
  Status Open(const std::string& path);
  // REQUIRES: Open() succeeded. IoError on a failed write.
  Status Write(const RequestRecord& record);
  Status Close();
  bool is_open() const { return file_ != nullptr; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace frontier::metrics
