#include "store/import_export.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/parse.h"
#include "metrics/json_fields.h"
#include "metrics/result_json.h"

namespace frontier::store {
namespace {

using nlohmann::json;

// Deeper than any result file; keeps recursive walks of the document shallow.
constexpr int64_t kMaxJsonDepth = 64;

// Every field of an imported object is read with its type and range.
using Fields = metrics::JsonFields;

// OK unless a lower percentile exceeds a higher one of the same metric.
Status CheckOrder(const PointMetrics& m, const std::string& where) {
  const struct {
    const char* name;
    double median, p99;
  } pairs[] = {{"ttft", m.median_ttft_ms, m.p99_ttft_ms},
               {"tpot", m.median_tpot_ms, m.p99_tpot_ms},
               {"itl", m.median_itl_ms, m.p99_itl_ms},
               {"e2el", m.median_e2el_ms, m.p99_e2el_ms}};
  for (const auto& p : pairs) {
    if (p.median > 0 && p.p99 > 0 && p.median > p.p99 * (1 + 1e-9)) {
      return InvalidArgument(where + ": the median " + p.name + " (" + FormatNumber(p.median) +
                             " ms) exceeds its p99 (" + FormatNumber(p.p99) + " ms); the file contradicts itself");
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
  pr.run.source = source::kImported;
  pr.run.config = {{"model", d.model_id}, {"engine", d.backend}, {"gpus", std::to_string(o.num_gpus)}};
  if (!o.hardware.empty()) pr.run.config["hardware"] = o.hardware;
  pr.run.provenance = {{"format", "vllm bench serve"}, {"file", file}, {"date", d.date}};

  PointRecord p;
  p.source = source::kImported;
  if (d.max_concurrency) {
    p.load_kind = "concurrency";
    p.load_value = static_cast<double>(*d.max_concurrency);
  } else {
    p.load_kind = "request_rate";
    // "inf" (or no rate at all) sorts last.
    p.load_value = d.request_rate && std::isfinite(*d.request_rate) ? *d.request_rate : kInfiniteRate;
  }
  p.workload = "vllm";
  p.key = PointKey(p.workload, p.load_kind, p.load_value, 0);
  p.settings = d.settings;
  // The file does not say how many GPUs served it: per-GPU figures divide by --gpus.
  PointMetrics& m = p.metrics;
  m = MetricsFromSummary(d.summary, o.num_gpus);
  m.output_tput_per_gpu = m.output_throughput / o.num_gpus;
  m.total_tput_per_gpu = m.total_token_throughput / o.num_gpus;
  FRONTIER_RETURN_IF_ERROR(CheckOrder(m, file));
  FRONTIER_RETURN_IF_ERROR(CheckPoint(p, file));
  json summary = json::object();
  for (auto& [k, v] : j.items())
    if (v.is_number() || v.is_string()) summary[k] = v;
  p.summary_json = summary.dump(-1, ' ', false, json::error_handler_t::replace);
  // A frontier result's series over time stay with the point (readers parse them defensively).
  if (auto it = j.find("server_metrics"); it != j.end() && it->is_object())
    p.series.server_metrics_json = it->dump(-1, ' ', false, json::error_handler_t::replace);
  if (auto it = j.find("timeslices"); it != j.end() && it->is_object())
    p.series.timeslices_json = it->dump(-1, ' ', false, json::error_handler_t::replace);

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
                              f.RequiredInteger("conc", 1, static_cast<int64_t>(kMaxConcurrency), kInferenceXHint));
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
      pr.run.source = source::kImported;
      pr.run.config = {{"hardware", hw}, {"engine", fw}, {"precision", prec}, {"model", model},
                       {"isl", isl}, {"osl", osl}};
      pr.run.provenance = {{"format", "InferenceX agg"}, {"file", file}};
    }
    PointRecord p;
    p.source = source::kImported;
    p.workload = isl + "/" + osl;
    p.load_kind = "concurrency";
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
    const int rep = seen[pr.run.system + "|" + PointKey(p.workload, "concurrency", p.load_value, 0) + variant]++;
    p.repetition = rep;
    p.key = PointKey(p.workload, p.load_kind, p.load_value, rep) + variant;
    PointMetrics& m = p.metrics;
    m.num_gpus = static_cast<int>(gpus);
    m.total_tput_per_gpu = tput;
    m.output_tput_per_gpu = out_tput;
    m.total_token_throughput = tput * static_cast<double>(gpus);
    m.output_throughput = out_tput * static_cast<double>(gpus);
    const std::pair<const char*, double PointMetrics::*> latencies[] = {
        {"mean_ttft", &PointMetrics::mean_ttft_ms},     {"median_ttft", &PointMetrics::median_ttft_ms},
        {"p99_ttft", &PointMetrics::p99_ttft_ms},       {"mean_tpot", &PointMetrics::mean_tpot_ms},
        {"median_tpot", &PointMetrics::median_tpot_ms}, {"p99_tpot", &PointMetrics::p99_tpot_ms},
        {"mean_itl", &PointMetrics::mean_itl_ms},       {"median_itl", &PointMetrics::median_itl_ms},
        {"p99_itl", &PointMetrics::p99_itl_ms},         {"mean_e2el", &PointMetrics::mean_e2el_ms},
        {"median_e2el", &PointMetrics::median_e2el_ms}, {"p99_e2el", &PointMetrics::p99_e2el_ms},
    };
    for (const auto& [key, member] : latencies) {
      FRONTIER_ASSIGN_OR_RETURN(auto v, f.Number(key, 0, kMaxLatencyMs / 1000.0));
      m.*member = v.value_or(0) * 1000.0;
    }
    FRONTIER_ASSIGN_OR_RETURN(auto intvty, f.Number("median_intvty", 0, kMaxThroughput));
    FRONTIER_ASSIGN_OR_RETURN(auto mean_intvty, f.Number("mean_intvty", 0, kMaxThroughput));
    (void)mean_intvty;
    if (intvty) {
      m.interactivity = *intvty;
    } else {
      m.interactivity = m.median_tpot_ms > 0 ? 1000.0 / m.median_tpot_ms : 0;
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

std::string Num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
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
  const PointMetrics& m = p.metrics;
  nlohmann::ordered_json j = {{"id", p.id},
            {"key", p.key},
            {"workload", p.workload},
            {"load_kind", p.load_kind},
            // request_rate=inf is stored as bounds::kInfiniteRate (SQLite has no infinity).
            {"load_value", p.load_value == bounds::kInfiniteRate ? nlohmann::ordered_json("inf")
                                                                  : nlohmann::ordered_json(p.load_value)},
            {"repetition", p.repetition},
            {"source", p.source},
            {"attempts", p.attempts},
            {"created_utc", p.created_utc},
            {"settings", p.settings},
            {"num_gpus", m.num_gpus},
            {"completed", m.completed},
            {"failed", m.failed},
            {"total_input_tokens", m.total_input_tokens},
            {"total_output_tokens", m.total_output_tokens},
            {"duration", m.duration_s},
            {"request_throughput", m.request_throughput},
            {"output_throughput", m.output_throughput},
            {"total_token_throughput", m.total_token_throughput},
            {"output_tput_per_gpu", m.output_tput_per_gpu},
            {"tput_per_gpu", m.total_tput_per_gpu},
            {"interactivity", m.interactivity},
            {"mean_ttft_ms", m.mean_ttft_ms},
            {"median_ttft_ms", m.median_ttft_ms},
            {"p99_ttft_ms", m.p99_ttft_ms},
            {"mean_tpot_ms", m.mean_tpot_ms},
            {"median_tpot_ms", m.median_tpot_ms},
            {"p99_tpot_ms", m.p99_tpot_ms},
            {"mean_itl_ms", m.mean_itl_ms},
            {"median_itl_ms", m.median_itl_ms},
            {"p99_itl_ms", m.p99_itl_ms},
            {"mean_e2el_ms", m.mean_e2el_ms},
            {"median_e2el_ms", m.median_e2el_ms},
            {"p99_e2el_ms", m.p99_e2el_ms},
            {"max_concurrent_requests", m.max_concurrent_requests}};
  return j;
}

}  // namespace

Result<std::string> ExportJson(Store& store) {
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(0));
  nlohmann::ordered_json out = {{"schema_version", store.SchemaVersion()},
                                {"runs", nlohmann::ordered_json::array()}};
  for (const auto& r : runs) {
    nlohmann::ordered_json jr = {{"id", r.id},           {"label", r.Label()},   {"sweep", r.sweep},
               {"system", r.system},   {"source", r.source},   {"status", r.status.ToString()},
               {"created_utc", r.created_utc}, {"plan_hash", r.plan_hash},
               {"config", r.config},   {"provenance", r.provenance}, {"points", nlohmann::ordered_json::array()}};
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
    j.erase("settings");
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
                                          : v.is_number_float() ? Num(v.get<double>()) : v.dump());
    }
    csv += "," + CsvField(json(p.settings).dump()) + "\n";
  }
  if (!header_done) csv += "\n";
  return csv;
}

}  // namespace frontier::store
