#include "store/import_export.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/parse.h"
#include "metrics/json_fields.h"
#include "metrics/result_json.h"
#include "store/schema.h"

namespace frontier::store {
namespace {

using nlohmann::json;

// Deeper than any result file; keeps recursive walks of the document shallow.
constexpr int64_t kMaxJsonDepth = 64;

// Every field of an imported object is read with its type and range.
using Fields = metrics::JsonFields;

// OK unless a lower percentile exceeds a higher one of the same metric.
Status CheckOrder(const metrics::Summary& m, const std::string& where) {
  const std::pair<const char*, const metrics::Distribution*> pairs[] = {
      {"ttft", &m.ttft_ms}, {"tpot", &m.tpot_ms}, {"itl", &m.itl_ms}, {"e2el", &m.e2el_ms}};
  for (const auto& [name, d] : pairs) {
    const double median = d->median, p99 = P99(*d);
    if (median > 0 && p99 > 0 && median > p99 * (1 + 1e-9)) {
      return InvalidArgument(where + ": the median " + name + " (" + FormatNumber(median) +
                             " ms) exceeds its p99 (" + FormatNumber(p99) + " ms); the file contradicts itself");
    }
  }
  if (m.output_throughput > m.total_token_throughput * (1 + 1e-9)) {
    return InvalidArgument(where + ": the output throughput (" + FormatNumber(m.output_throughput) +
                           ") exceeds the total token throughput (" + FormatNumber(m.total_token_throughput) +
                           ") it is part of; the file contradicts itself");
  }
  return Status::Ok();
}

// A vLLM (or frontier) result through metrics' one reader of the format; the
// store adds what an import is: its run, its point and its request rows.
Result<ParsedRun> ParseVllm(const json& j, const std::string& file, const ImportOptions& o) {
  using namespace bounds;
  FRONTIER_RETURN_IF_ERROR(CheckRange("--gpus", int64_t{o.num_gpus}, 1, kMaxGpus));
  FRONTIER_ASSIGN_OR_RETURN(const metrics::ResultDocument d, metrics::ReadResultDocument(j, file));
  ParsedRun pr;
  pr.run.sweep = "import";
  pr.run.system = !o.system.empty() ? o.system : (d.backend.empty() ? "vllm" : d.backend) + ":" + d.model_id;
  pr.run.source = Source::kImported;
  pr.run.config = {{"model", d.model_id}, {"engine", d.backend}, {"gpus", std::to_string(o.num_gpus)}};
  if (!o.hardware.empty()) pr.run.config["hardware"] = o.hardware;
  pr.run.provenance = {{"format", "vllm bench serve"}, {"file", file}, {"date", d.date}};

  PointRecord p;
  p.source = Source::kImported;
  SetPointLoad(d.max_concurrency, d.request_rate, &p);  // "inf" (or no rate at all) sorts last
  p.workload = "vllm";
  p.key = PointKey(p.workload, p.load_kind, p.load_value, 0);
  p.settings = d.settings;
  // The file does not say how many GPUs served it: per-GPU figures divide by --gpus.
  p.num_gpus = o.num_gpus;
  metrics::Summary& m = p.metrics;
  m = d.summary;
  m.output_throughput_per_gpu = m.output_throughput / o.num_gpus;
  m.total_token_throughput_per_gpu = m.total_token_throughput / o.num_gpus;
  FRONTIER_RETURN_IF_ERROR(CheckOrder(m, file));
  FRONTIER_RETURN_IF_ERROR(CheckPoint(p, file));
  json summary = json::object();
  for (auto& [k, v] : j.items())
    if (v.is_number() || v.is_string()) summary[k] = v;
  // A frontier result's measured energy, as read and checked (metrics::EnergyFromJson).
  if (d.summary.energy) summary["energy"] = metrics::EnergyToJson(*d.summary.energy);
  p.summary_json = summary.dump(-1, ' ', false, json::error_handler_t::replace);
  // A frontier result's series over time stay with the point (readers parse them defensively).
  if (auto it = j.find("server_metrics"); it != j.end() && it->is_object())
    p.series.server_metrics_json = it->dump(-1, ' ', false, json::error_handler_t::replace);
  if (auto it = j.find("timeslices"); it != j.end() && it->is_object())
    p.series.timeslices_json = it->dump(-1, ' ', false, json::error_handler_t::replace);
  p.band = d.band;  // a simulated run's result file keeps how sure it was

  std::vector<RequestRow> rows;
  rows.reserve(d.requests.size());
  for (size_t i = 0; i < d.requests.size(); ++i) {
    const metrics::ResultRequest& q = d.requests[i];
    RequestRow r;
    r.idx = static_cast<int64_t>(i);
    r.sent_ns = r.scheduled_ns = 0;
    r.prompt_tokens = static_cast<int32_t>(q.input_len);
    r.output_tokens = static_cast<int32_t>(q.output_len);
    r.ok = q.ttft_s > 0;
    if (r.ok) {
      r.first_token_ns = SecondsToNanos(q.ttft_s);
      r.events = q.chunks;
      r.end_ns = SecondsToNanos(q.end_s);
    } else if (d.has_errors) {
      r.failure = "other";
    }
    rows.push_back(r);
  }
  pr.points.push_back(std::move(p));
  pr.requests.push_back(std::move(rows));
  return pr;
}

constexpr const char* kInferenceXHint = "is this an InferenceX agg_*.json result?";

Result<std::vector<ParsedRun>> ParseInferenceX(const json& records, const std::string& file) {
  using namespace bounds;
  using Group = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Group, ParsedRun> groups;
  std::vector<Group> order;
  std::map<std::string, int> seen;  // configuration -> repetitions so far
  for (size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    const std::string where = file + ": record " + std::to_string(i);
    if (!r.is_object()) return InvalidArgument(where + ": expected an object");
    const Fields f(r, where);
    FRONTIER_ASSIGN_OR_RETURN(const std::string hw, f.Name("hw"));
    if (hw.empty()) return InvalidArgument(where + ": field 'hw' is missing or empty; " + kInferenceXHint);
    FRONTIER_ASSIGN_OR_RETURN(const int64_t conc,
                              f.RequiredInteger("conc", 1, kMaxConcurrency, kInferenceXHint));
    FRONTIER_ASSIGN_OR_RETURN(const double tput, f.RequiredNumber("tput_per_gpu", 0, kMaxThroughput, kInferenceXHint));
    FRONTIER_ASSIGN_OR_RETURN(const double out_tput,
                              f.RequiredNumber("output_tput_per_gpu", 0, kMaxThroughput, kInferenceXHint));
    FRONTIER_ASSIGN_OR_RETURN(const std::string fw, f.Name("framework"));
    FRONTIER_ASSIGN_OR_RETURN(const std::string prec, f.Name("precision"));
    FRONTIER_ASSIGN_OR_RETURN(const std::string model, f.Name("model"));
    FRONTIER_ASSIGN_OR_RETURN(const auto isl_n, f.Integer("isl", 1, kMaxRequestTokens));
    FRONTIER_ASSIGN_OR_RETURN(const auto osl_n, f.Integer("osl", 1, kMaxRequestTokens));
    const std::string isl = isl_n ? std::to_string(*isl_n) : "", osl = osl_n ? std::to_string(*osl_n) : "";
    // Parallelism sizes: whole GPUs.
    std::map<std::string, int64_t> sizes;
    for (const char* k : {"tp", "ep", "prefill_tp", "decode_tp", "prefill_ep", "decode_ep", "num_gpus"}) {
      FRONTIER_ASSIGN_OR_RETURN(auto v, f.Integer(k, 1, kMaxGpus));
      if (v) sizes[k] = *v;
    }
    for (const char* k : {"num_prefill_gpu", "num_decode_gpu"}) {
      FRONTIER_ASSIGN_OR_RETURN(auto v, f.Integer(k, 0, kMaxGpus));
      if (v) sizes[k] = *v;
    }
    Group g{hw, fw, prec, model, isl, osl};
    auto [it, fresh] = groups.try_emplace(g);
    ParsedRun& pr = it->second;
    if (fresh) {
      order.push_back(g);
      pr.run.sweep = "import";
      pr.run.system = hw + (fw.empty() ? "" : "-" + fw) + (prec.empty() ? "" : "-" + prec);
      pr.run.source = Source::kImported;
      pr.run.config = {{"hardware", hw}, {"engine", fw}, {"precision", prec}, {"model", model},
                       {"isl", isl}, {"osl", osl}};
      pr.run.provenance = {{"format", "InferenceX agg"}, {"file", file}};
    }
    PointRecord p;
    p.source = Source::kImported;
    p.workload = isl + "/" + osl;
    p.load_kind = LoadKind::kConcurrency;
    p.load_value = static_cast<double>(conc);
    std::string variant;
    for (const char* k : {"tp", "ep", "dp_attention", "spec_decoding", "image", "disagg",
                          "prefill_tp", "decode_tp", "prefill_ep", "decode_ep", "isl", "osl"}) {
      if (!f.Find(k)) continue;
      FRONTIER_ASSIGN_OR_RETURN(p.settings[k], f.Text(k));
    }
    for (const char* k : {"tp", "ep", "dp_attention", "spec_decoding", "prefill_tp", "decode_tp"})
      if (p.settings.count(k)) variant += std::string("|") + k + "=" + p.settings[k];
    int64_t gpus = 0;
    if (sizes.count("num_gpus")) {
      gpus = sizes["num_gpus"];
    } else if (sizes.count("num_prefill_gpu") && sizes.count("num_decode_gpu")) {
      gpus = sizes["num_prefill_gpu"] + sizes["num_decode_gpu"];
      if (gpus < 1) return InvalidArgument(where + ": num_prefill_gpu + num_decode_gpu must be at least 1, got 0");
    } else if (sizes.count("tp")) {
      gpus = sizes["tp"];
    } else {
      return InvalidArgument(where + ": the GPU count is missing: give num_gpus, num_prefill_gpu + "
                             "num_decode_gpu, or tp (per-GPU throughput means nothing without it)");
    }
    // Identical configuration at the same concurrency: a repetition.
    const std::string first = PointKey(p.workload, LoadKind::kConcurrency, p.load_value, 0);
    const int rep = seen[pr.run.system + "|" + first + variant]++;
    p.repetition = rep;
    p.key = PointKey(p.workload, p.load_kind, p.load_value, rep) + variant;
    p.num_gpus = static_cast<int>(gpus);
    metrics::Summary& m = p.metrics;
    m.total_token_throughput_per_gpu = tput;
    m.output_throughput_per_gpu = out_tput;
    m.total_token_throughput = tput * static_cast<double>(gpus);
    m.output_throughput = out_tput * static_cast<double>(gpus);
    // InferenceX's latencies are in seconds, under the column's name less "_ms".
    for (const char* key : {"mean_ttft", "median_ttft", "p99_ttft", "mean_tpot", "median_tpot", "p99_tpot",
                            "mean_itl", "median_itl", "p99_itl", "mean_e2el", "median_e2el", "p99_e2el"}) {
      FRONTIER_ASSIGN_OR_RETURN(auto v, f.Number(key, 0, kMaxLatencyMs / 1000.0));
      FindDoubleColumn(std::string(key) + "_ms")->Set(m, v.value_or(0) * 1000.0);
    }
    FRONTIER_ASSIGN_OR_RETURN(auto intvty, f.Number("median_intvty", 0, kMaxThroughput));
    FRONTIER_ASSIGN_OR_RETURN(auto mean_intvty, f.Number("mean_intvty", 0, kMaxThroughput));
    (void)mean_intvty;
    if (intvty) {
      m.interactivity = *intvty;
    } else {
      m.interactivity = m.tpot_ms.median > 0 ? 1000.0 / m.tpot_ms.median : 0;
    }
    FRONTIER_RETURN_IF_ERROR(CheckOrder(m, where));
    FRONTIER_RETURN_IF_ERROR(CheckPoint(p, where));
    p.summary_json = r.dump(-1, ' ', false, json::error_handler_t::replace);
    pr.points.push_back(std::move(p));
    pr.requests.emplace_back();
  }
  std::vector<ParsedRun> out;
  for (auto& g : order) out.push_back(std::move(groups[g]));
  return out;
}

constexpr const char* kExportHint = "is this a `frontier db export` JSON file?";

// An object of strings (a run's config or provenance, a point's settings).
Result<std::map<std::string, std::string>> StringMap(const Fields& f, const std::string& key) {
  std::map<std::string, std::string> out;
  const json* v = f.Find(key);
  if (v == nullptr) return out;
  if (!v->is_object()) return InvalidArgument(f.where() + ": " + key + " must be an object of strings");
  for (const auto& [k, item] : v->items()) {
    if (!item.is_string())
      return InvalidArgument(f.where() + ": " + key + "." + k + " must be a string, got " + metrics::ShownJson(item));
    out[k] = item.get<std::string>();
  }
  return out;
}

// A text field that holds JSON (search_json, a verdict, a series), shallow
// enough to parse safely; "" when absent.
Result<std::string> ShallowJsonText(const Fields& f, const std::string& key) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, f.Name(key));
  if (JsonNestingDepth(text) > kMaxJsonDepth)
    return InvalidArgument(f.where() + ": " + key + " is nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels");
  return text;
}

// As ShallowJsonText, and "" or a JSON object (what the store's readers expect).
Result<std::string> JsonText(const Fields& f, const std::string& key) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ShallowJsonText(f, key));
  if (text.empty()) return text;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return InvalidArgument(f.where() + ": " + key + " must be \"\" or a JSON object as text, got '" +
                           text.substr(0, 60) + "'");
  return text;
}

// A point of an exported run; `run_source` is its source when it names none.
Result<PointRecord> ParseExportedPoint(const json& jp, const std::string& where, Source run_source) {
  using namespace bounds;
  if (!jp.is_object()) return InvalidArgument(where + ": expected an object");
  const Fields f(jp, where);
  PointRecord p;
  FRONTIER_ASSIGN_OR_RETURN(p.key, f.Name("key"));
  if (p.key.empty()) return InvalidArgument(where + ": field 'key' is missing or empty; " + kExportHint);
  FRONTIER_ASSIGN_OR_RETURN(p.workload, f.Name("workload"));
  FRONTIER_ASSIGN_OR_RETURN(const std::string load_kind, f.Name("load_kind"));
  const Result<LoadKind> kind = ParseLoadKind(load_kind);
  if (!kind.ok()) return kind.status().WithContext(where);
  p.load_kind = *kind;
  if (const json* v = f.Find("load_value"); v != nullptr && v->is_string() && *v == "inf") {
    p.load_value = kInfiniteRate;
  } else {
    // A probe size may pass any request rate; CheckPoint holds each kind to its own range.
    const double most = p.load_kind == LoadKind::kProbe ? kMaxProbeSize : kMaxRequestRate;
    FRONTIER_ASSIGN_OR_RETURN(p.load_value, f.RequiredNumber("load_value", 0, most, kExportHint));
  }
  FRONTIER_ASSIGN_OR_RETURN(const auto rep, f.Integer("repetition", 0, kMaxRepetition));
  p.repetition = static_cast<int>(rep.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::string source, f.Name("source"));
  if (source.empty()) {
    p.source = run_source;
  } else {
    const Result<Source> s = ParseSource(source);
    if (!s.ok()) return s.status().WithContext(where);
    p.source = *s;
  }
  FRONTIER_ASSIGN_OR_RETURN(const auto attempts, f.Integer("attempts", 1, kMaxAttempts));
  p.attempts = static_cast<int>(attempts.value_or(1));
  FRONTIER_ASSIGN_OR_RETURN(p.created_utc, f.Name("created_utc"));
  FRONTIER_ASSIGN_OR_RETURN(p.settings, StringMap(f, "settings"));
  metrics::Summary& m = p.metrics;
  FRONTIER_ASSIGN_OR_RETURN(const auto gpus, f.Integer("num_gpus", 1, kMaxGpus));
  p.num_gpus = static_cast<int>(gpus.value_or(1));
  // Each count within the token bound here; CheckPoint applies its column's own.
  for (int i = 0; i < kNumIntColumns; ++i) {
    FRONTIER_ASSIGN_OR_RETURN(const auto v, f.Integer(kIntColumns[i].name, 0, kMaxTokens));
    m.*kIntColumns[i].member = v.value_or(0);
  }
  // Under the keys PointJson writes them with, each within its column's bound
  // (so a figure out of range is named as the file names it).
  for (int i = 0; i < kNumDoubleColumns; ++i) {
    const DoubleColumn& c = kDoubleColumns[i];
    FRONTIER_ASSIGN_OR_RETURN(const auto v, f.Number(c.ExportName(), 0, c.max));
    c.Set(m, v.value_or(0));
  }
  FRONTIER_ASSIGN_OR_RETURN(p.summary_json, JsonText(f, "summary_json"));
  FRONTIER_ASSIGN_OR_RETURN(p.verdict_json, ShallowJsonText(f, "verdict_json"));  // CheckPoint parses them
  FRONTIER_ASSIGN_OR_RETURN(p.trial_json, ShallowJsonText(f, "trial_json"));
  if (const json* series = f.Find("series"); series != nullptr) {
    if (!series->is_object()) return InvalidArgument(where + ": series must be an object");
    const Fields fs(*series, where + ": series");
    FRONTIER_ASSIGN_OR_RETURN(p.series.server_metrics_json, JsonText(fs, "server_metrics_json"));
    FRONTIER_ASSIGN_OR_RETURN(p.series.timeslices_json, JsonText(fs, "timeslices_json"));
  }
  FRONTIER_ASSIGN_OR_RETURN(p.band, metrics::ReadBand(jp, where));
  FRONTIER_RETURN_IF_ERROR(CheckOrder(m, where));
  FRONTIER_RETURN_IF_ERROR(CheckPoint(p, where));  // bounds, load kind, verdict and trial texts
  return p;
}

// A `frontier db export` JSON document: its runs as they were, sources,
// statuses, verdicts, trials, search outcomes and series included (ids are
// renumbered by the store; per-request rows are not exported).
Result<std::vector<ParsedRun>> ParseFrontierExport(const json& doc, const std::string& file) {
  const auto found = doc.find("runs");
  if (found == doc.end() || !found->is_array()) return InvalidArgument(file + ": runs must be a list; " + kExportHint);
  const json& runs = *found;
  std::vector<ParsedRun> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string where = file + ": runs[" + std::to_string(i) + "]";
    const json& jr = runs[i];
    if (!jr.is_object()) return InvalidArgument(where + ": expected an object");
    const Fields f(jr, where);
    ParsedRun pr;
    RunInfo& r = pr.run;
    FRONTIER_ASSIGN_OR_RETURN(r.sweep, f.Name("sweep"));
    FRONTIER_ASSIGN_OR_RETURN(r.system, f.Name("system"));
    if (r.system.empty()) return InvalidArgument(where + ": field 'system' is missing or empty; " + kExportHint);
    FRONTIER_ASSIGN_OR_RETURN(const std::string source, f.Name("source"));
    const Result<Source> run_source = ParseSource(source);
    if (!run_source.ok()) return run_source.status().WithContext(where);
    r.source = *run_source;
    FRONTIER_ASSIGN_OR_RETURN(const std::string status, f.Name("status"));
    r.status = status.empty() ? SystemStatus{} : ParseSystemStatus(status);
    FRONTIER_ASSIGN_OR_RETURN(r.created_utc, f.Name("created_utc"));
    FRONTIER_ASSIGN_OR_RETURN(r.plan_hash, f.Name("plan_hash"));
    FRONTIER_ASSIGN_OR_RETURN(r.plan_text, f.Name("plan_text"));
    FRONTIER_ASSIGN_OR_RETURN(r.config, StringMap(f, "config"));
    FRONTIER_ASSIGN_OR_RETURN(r.provenance, StringMap(f, "provenance"));
    FRONTIER_ASSIGN_OR_RETURN(r.search_json, JsonText(f, "search_json"));
    r.provenance["imported_from"] = file;
    const json* points = f.Find("points");
    if (points != nullptr && !points->is_array()) return InvalidArgument(where + ": points must be a list");
    std::set<std::string> keys;
    for (size_t k = 0; points != nullptr && k < points->size(); ++k) {
      const std::string at = where + ": points[" + std::to_string(k) + "]";
      FRONTIER_ASSIGN_OR_RETURN(PointRecord p, ParseExportedPoint((*points)[k], at, r.source));
      // A run keeps a point once (the store would stop half way through the import).
      if (!keys.insert(p.key).second) return InvalidArgument(at + ": key '" + p.key + "' appears twice in its run");
      pr.points.push_back(std::move(p));
      pr.requests.emplace_back();
    }
    out.push_back(std::move(pr));
  }
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

Result<std::vector<ParsedRun>> ParseResultFile(const std::string& text, const std::string& file,
                                               const ImportOptions& options, std::optional<ImportFormat> format) {
  return CatchExceptions(file, [&]() -> Result<std::vector<ParsedRun>> {
    if (JsonNestingDepth(text) > kMaxJsonDepth) {
      return InvalidArgument(file + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels; not a vLLM or InferenceX result");
    }
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return InvalidArgument(file + ": not valid JSON");
    const bool list = j.is_array();
    if (!list && !j.is_object()) return InvalidArgument(file + ": expected a JSON object or list");
    // A frontier export (ExportJson) is an object with its schema version and its runs.
    if (!format && !list && j.contains("schema_version") && j.contains("runs")) format = ImportFormat::kFrontierExport;
    if (format == ImportFormat::kFrontierExport) {
      if (!j.is_object()) return InvalidArgument(file + ": a frontier export is one JSON object");
      return ParseFrontierExport(j, file);
    }
    const bool vllm = !list && !j.contains("tput_per_gpu") && j.contains("output_throughput");
    if (!format) {
      if (!list && !j.contains("tput_per_gpu") && !vllm) {
        return InvalidArgument(file +
                               ": neither a vLLM result (no 'output_throughput') nor an InferenceX "
                               "result (no 'tput_per_gpu')");
      }
      format = vllm ? ImportFormat::kVllm : ImportFormat::kInferenceX;
    }
    if (*format == ImportFormat::kInferenceX) {
      if (list && j.empty()) return InvalidArgument(file + ": an empty list has no results to import");
      return ParseInferenceX(list ? j : json::array({j}), file);
    }
    if (!j.is_object()) return InvalidArgument(file + ": a vLLM result is one JSON object");
    FRONTIER_ASSIGN_OR_RETURN(ParsedRun pr, ParseVllm(j, file, options));
    std::vector<ParsedRun> out;
    out.push_back(std::move(pr));
    return out;
  });
}

Result<std::vector<ParsedRun>> ReadResultFile(const std::string& path, const ImportOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxImportBytes, "imported result files"));
  return ParseResultFile(text, path, options);
}

Result<std::vector<RunInfo>> ImportText(Store& store, const std::string& text,
                                        const std::string& file_name, const ImportOptions& options) {
  if (const uint64_t limit = InputLimit(kMaxImportBytes); text.size() > limit)
    return InvalidArgument(file_name + ": larger than " + std::to_string(limit / kMiB) +
                           " MiB, the bound on imported result files (docs/limits.md); set "
                           "FRONTIER_MAX_INPUT_MB to raise it");
  FRONTIER_ASSIGN_OR_RETURN(auto parsed, ParseResultFile(text, file_name, options));
  return StoreParsedRuns(store, std::move(parsed));
}

Result<std::vector<RunInfo>> StoreParsedRuns(Store& store, std::vector<ParsedRun> parsed) {
  std::vector<RunInfo> runs;
  for (auto& pr : parsed) {
    pr.run.provenance["imported_utc"] = UtcTimestampNow();

    FRONTIER_ASSIGN_OR_RETURN(RunInfo run, store.CreateRun(pr.run));
    for (size_t i = 0; i < pr.points.size(); ++i) {
      pr.points[i].run_id = run.id;
      FRONTIER_ASSIGN_OR_RETURN(int64_t id, store.AddPoint(pr.points[i], pr.requests[i]));
      (void)id;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<std::vector<RunInfo>> ImportFile(Store& store, const std::string& path,
                                        const ImportOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(auto parsed, ReadResultFile(path, options));
  return StoreParsedRuns(store, std::move(parsed));
}

namespace {

nlohmann::ordered_json PointJson(const PointRecord& p) {
  nlohmann::ordered_json j = {{"id", p.id},
            {"key", p.key},
            {"workload", p.workload},
            {"load_kind", LoadKindName(p.load_kind)},
            // request_rate=inf is stored as bounds::kInfiniteRate (SQLite has no infinity).
            {"load_value", p.load_value == bounds::kInfiniteRate ? nlohmann::ordered_json("inf")
                                                                  : nlohmann::ordered_json(p.load_value)},
            {"repetition", p.repetition},
            {"source", SourceName(p.source)},
            {"attempts", p.attempts},
            {"created_utc", p.created_utc},
            {"settings", p.settings},
            {"num_gpus", p.num_gpus}};
  for (int i = 0; i < kNumIntColumns; ++i) j[kIntColumns[i].name] = p.metrics.*kIntColumns[i].member;
  // The metric columns, in the table's order, under the export's names.
  for (int i = 0; i < kNumDoubleColumns; ++i) j[kDoubleColumns[i].ExportName()] = kDoubleColumns[i].Get(p.metrics);
  // The texts the store keeps as they are, exported as strings so an import
  // stores them byte for byte ("" when the point has none).
  j["summary_json"] = p.summary_json;
  j["verdict_json"] = p.verdict_json;
  j["trial_json"] = p.trial_json;
  j["series"] = {{"server_metrics_json", p.series.server_metrics_json},
                 {"timeslices_json", p.series.timeslices_json}};
  // A simulated point's band under the result file's keys (metrics::BandToJson).
  if (p.band) j.update(nlohmann::ordered_json(metrics::BandToJson(*p.band)));
  return j;
}

// The exported points with their series (ListPoints leaves them out).
Result<std::vector<PointRecord>> PointsWithSeries(Store& store) {
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(0));
  for (auto& p : points) {
    FRONTIER_ASSIGN_OR_RETURN(p.series, store.GetPointSeries(p.id));
  }
  return points;
}

}  // namespace

Result<std::string> ExportJson(Store& store) {
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
  FRONTIER_ASSIGN_OR_RETURN(auto points, PointsWithSeries(store));
  nlohmann::ordered_json out = {{"schema_version", store.SchemaVersion()},
                                {"runs", nlohmann::ordered_json::array()}};
  for (const auto& r : runs) {
    nlohmann::ordered_json jr = {{"id", r.id},           {"label", r.Label()},   {"sweep", r.sweep},
               {"system", r.system},   {"source", SourceName(r.source)},   {"status", r.status.ToString()},
               {"created_utc", r.created_utc}, {"plan_hash", r.plan_hash}, {"plan_text", r.plan_text},
               {"config", r.config},   {"provenance", r.provenance}, {"search_json", r.search_json},
               {"points", nlohmann::ordered_json::array()}};
    for (const auto& p : points)
      if (p.run_id == r.id) jr["points"].push_back(PointJson(p));
    out["runs"].push_back(std::move(jr));
  }
  return out.dump(2) + "\n";
}

Result<std::string> ExportCsv(Store& store) {
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(0));
  std::map<int64_t, const RunInfo*> by_id;
  for (const auto& r : runs) by_id[r.id] = &r;
  std::vector<std::string> cols;
  std::string csv = "run_id,run,system,hardware";
  bool header_done = false;
  for (const auto& p : points) {
    nlohmann::ordered_json j = PointJson(p);
    // The texts stay in the JSON export; a row says the verdict in words.
    for (const char* k : {"settings", "summary_json", "verdict_json", "trial_json", "series", "band_half_width",
                          "band_points", "band_basis", "band_flags"})
      j.erase(k);
    const Result<VerdictView> verdict = ParseVerdict(p.verdict_json);  // checked when stored
    j["verdict"] = verdict.ok() ? verdict->Label() : "";
    j["verdict_reason"] = verdict.ok() ? verdict->first_reason : "";
    if (!header_done) {
      for (auto& [k, v] : j.items()) {
        cols.push_back(k);
        csv += "," + k;
      }
      csv += ",settings\n";
      header_done = true;
    }
    const RunInfo* r = by_id.count(p.run_id) ? by_id[p.run_id] : nullptr;
    std::string hw = r && r->config.count("hardware") ? r->config.at("hardware") : "";
    csv += std::to_string(p.run_id) + "," + CsvField(r ? r->Label() : "") + "," +
           CsvField(r ? r->system : "") + "," + CsvField(hw);
    for (auto& k : cols) {
      const nlohmann::ordered_json& v = j[k];
      csv += "," + CsvField(v.is_string() ? v.get<std::string>()
                                          : v.is_number_float() ? FormatSignificant(v.get<double>(), 10) : v.dump());
    }
    csv += "," + CsvField(json(p.settings).dump()) + "\n";
  }
  if (!header_done) csv += "\n";
  return csv;
}

}  // namespace frontier::store
