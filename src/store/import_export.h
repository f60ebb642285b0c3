// import_export.h: results in and out of the store as files.
//
// Import reads two published formats so public and local results sit side by side:
//   * vLLM `vllm bench serve --save-result` JSON: one object per file, latencies
//     in ms (mean_ttft_ms, median_tpot_ms, p99_itl_ms, ...), throughputs for the
//     whole server; per-GPU figures divide by ImportOptions::num_gpus (vLLM's
//     file does not say how many GPUs served it). Per-request arrays (ttfts,
//     itls, input_lens, output_lens), when present, become request rows.
//   * InferenceX agg_*.json: one record or a list of records with hw, conc,
//     model, framework, precision, isl, osl, tp, ep, tput_per_gpu,
//     output_tput_per_gpu, {mean,median,p99}_{ttft,tpot,itl,e2el} in seconds and
//     {mean,median}_intvty in tok/s/user. GPUs per point: num_gpus if present,
//     else num_prefill_gpu + num_decode_gpu, else tp. Records that share hw,
//     framework, precision, model, isl and osl form one run (one frontier line);
//     identical configurations at the same concurrency become repetitions.
//   * frontier's own export (ExportJson below): the runs as they were stored,
//     with their sources (measured, simulated, imported), statuses, search
//     outcomes, and each point's verdict, trial, summary and series texts,
//     stored byte for byte; ids are renumbered, created_utc kept.
// A vLLM or InferenceX point has source "imported"; every imported run's
// provenance names the file (and, for an export, "imported_from").
//
// Export writes every run and point as JSON (runs with nested points) or CSV
// (one row per point). A point's metrics are keyed by kDoubleColumns
// (store/schema.h): the column names, but `duration` and `tput_per_gpu` for
// duration_s and total_tput_per_gpu, as export files always had them; import
// reads the same keys. The JSON keeps what the store keeps as text (a run's
// plan_text and search_json; a point's summary_json, verdict_json,
// trial_json and series {server_metrics_json, timeslices_json}) as strings,
// "" when absent, so that export -> import round-trips them exactly; it has
// no per-request rows (`frontier db copy` carries those). The CSV has the
// scalar columns plus `verdict` (VALID, INVALID or "") and `verdict_reason`
// (the first reason of an INVALID verdict).
//
// Thread safety: functions over a Store the caller owns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace frontier::store {

struct ImportOptions {
  std::string system;      // run name for a vLLM file; default "<backend>:<model_id>"
  std::string hardware;    // recorded in the run's config for a vLLM file; default ""
  int num_gpus = 1;        // GPUs behind a vLLM result (per-GPU throughput divides by it)
};

// A run and its points, parsed from a file but not stored yet.
struct ParsedRun {
  RunInfo run;
  std::vector<PointRecord> points;
  std::vector<std::vector<RequestRow>> requests;  // parallel to points (may be empty)
};

enum class ImportFormat { kVllm, kInferenceX, kFrontierExport };

// Parses `text` (the contents of `file_name`) as `format`, or detecting it
// when unset: an object with `schema_version` and `runs` is a frontier
// export; a list, or an object with `tput_per_gpu`, is InferenceX; an
// object with `output_throughput` is vLLM, read by metrics' one reader of
// result files (metrics/result_json.h: ReadResultDocument). Every number is
// checked against the bounds of core/limits.h and the lists and figures
// against each other (per-request lists of one length, completed <=
// num_prompts, median <= p99, output throughput <= total); the first
// problem is an InvalidArgument naming
// the file, the record, the field, the value and the allowed range. Total:
// no input makes it throw, crash or read past the bounds.
Result<std::vector<ParsedRun>> ParseResultFile(const std::string& text,
                                               const std::string& file_name,
                                               const ImportOptions& options,
                                               std::optional<ImportFormat> format = std::nullopt);

// Reads (at most kMaxImportBytes, docs/limits.md) and parses a file.
Result<std::vector<ParsedRun>> ReadResultFile(const std::string& path, const ImportOptions& options);

// Stores parsed runs; returns them with their ids.
Result<std::vector<RunInfo>> StoreParsedRuns(Store& store, std::vector<ParsedRun> parsed);

// ReadResultFile, then StoreParsedRuns.
Result<std::vector<RunInfo>> ImportFile(Store& store, const std::string& path,
                                        const ImportOptions& options);
// The same for a file's contents already in memory (an upload): parses
// `text` as ParseResultFile does and stores it; `file_name` goes into
// messages and the runs' provenance.
Result<std::vector<RunInfo>> ImportText(Store& store, const std::string& text,
                                        const std::string& file_name, const ImportOptions& options);

// Every run with its points, as one JSON document.
Result<std::string> ExportJson(Store& store);
// One CSV row per point, header first (RFC 4180 quoting).
Result<std::string> ExportCsv(Store& store);

}  // namespace frontier::store
