#include "store/import_export.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/clock.h"

namespace frontier::store {
namespace {

using nlohmann::json;

// A number at `key`, accepting numbers and numeric strings ("inf" included).
std::optional<double> Number(const json& j, const std::string& key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end && *end == '\0' && end != s.c_str()) return v;
  }
  return std::nullopt;
}

std::string Text(const json& j, const std::string& key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string Num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

Result<ParsedRun> ParseVllm(const json& j, const std::string& file, const ImportOptions& o) {
  for (const char* required : {"completed", "output_throughput", "total_token_throughput"}) {
    if (!Number(j, required)) {
      return InvalidArgument(file + ": field '" + required +
                             "' is missing or not a number; is this a `vllm bench serve` result?");
    }
  }
  if (o.num_gpus < 1) return InvalidArgument("--gpus must be at least 1");
  ParsedRun pr;
  const std::string model = Text(j, "model_id");
  const std::string backend = Text(j, "backend");
  pr.run.sweep = "import";
  pr.run.system = !o.system.empty() ? o.system : (backend.empty() ? "vllm" : backend) + ":" + model;
  pr.run.source = source::kImported;
  pr.run.config = {{"model", model}, {"engine", backend}, {"gpus", std::to_string(o.num_gpus)}};
  if (!o.hardware.empty()) pr.run.config["hardware"] = o.hardware;
  pr.run.provenance = {{"format", "vllm bench serve"}, {"file", file}, {"date", Text(j, "date")}};

  PointRecord p;
  p.source = source::kImported;
  auto conc = Number(j, "max_concurrency");
  auto rate = Number(j, "request_rate");
  if (conc) {
    p.load_kind = "concurrency";
    p.load_value = *conc;
  } else {
    p.load_kind = "request_rate";
    p.load_value = rate.value_or(std::numeric_limits<double>::infinity());
  }
  if (std::isinf(p.load_value)) p.load_value = 1e300;  // "inf" sorts last; SQLite has no inf literal
  p.workload = "vllm";
  p.key = PointKey(p.workload, p.load_kind, p.load_value, 0);
  for (auto& k : {"num_prompts", "request_rate", "burstiness", "max_concurrency", "tokenizer_id"})
    if (j.contains(k)) p.settings[k] = Text(j, k);
  PointMetrics& m = p.metrics;
  m.num_gpus = o.num_gpus;
  m.completed = static_cast<int64_t>(Number(j, "completed").value_or(0));
  if (auto np = Number(j, "num_prompts")) m.failed = std::max<int64_t>(0, static_cast<int64_t>(*np) - m.completed);
  m.total_input_tokens = static_cast<int64_t>(Number(j, "total_input_tokens").value_or(0));
  m.total_output_tokens = static_cast<int64_t>(Number(j, "total_output_tokens").value_or(0));
  m.duration_s = Number(j, "duration").value_or(0);
  m.request_throughput = Number(j, "request_throughput").value_or(0);
  m.output_throughput = *Number(j, "output_throughput");
  m.total_token_throughput = *Number(j, "total_token_throughput");
  m.output_tput_per_gpu = m.output_throughput / o.num_gpus;
  m.total_tput_per_gpu = m.total_token_throughput / o.num_gpus;
  auto ms = [&](const char* k) { return Number(j, k).value_or(0); };
  m.mean_ttft_ms = ms("mean_ttft_ms");
  m.median_ttft_ms = ms("median_ttft_ms");
  m.p99_ttft_ms = ms("p99_ttft_ms");
  m.mean_tpot_ms = ms("mean_tpot_ms");
  m.median_tpot_ms = ms("median_tpot_ms");
  m.p99_tpot_ms = ms("p99_tpot_ms");
  m.mean_itl_ms = ms("mean_itl_ms");
  m.median_itl_ms = ms("median_itl_ms");
  m.p99_itl_ms = ms("p99_itl_ms");
  m.mean_e2el_ms = ms("mean_e2el_ms");
  m.median_e2el_ms = ms("median_e2el_ms");
  m.p99_e2el_ms = ms("p99_e2el_ms");
  m.max_concurrent_requests = ms("max_concurrent_requests");
  m.interactivity = m.median_tpot_ms > 0 ? 1000.0 / m.median_tpot_ms : 0;
  json summary = json::object();
  for (auto& [k, v] : j.items())
    if (v.is_number() || v.is_string()) summary[k] = v;
  p.summary_json = summary.dump();

  // Per-request arrays (vLLM saves them with --save-detailed): times in seconds.
  std::vector<RequestRow> rows;
  if (j.contains("ttfts") && j["ttfts"].is_array()) {
    const json& ttfts = j["ttfts"];
    for (size_t i = 0; i < ttfts.size(); ++i) {
      RequestRow r;
      r.idx = static_cast<int64_t>(i);
      r.sent_ns = r.scheduled_ns = 0;
      if (j.contains("input_lens") && i < j["input_lens"].size())
        r.prompt_tokens = j["input_lens"][i].get<int32_t>();
      if (j.contains("output_lens") && i < j["output_lens"].size())
        r.output_tokens = j["output_lens"][i].get<int32_t>();
      double ttft = ttfts[i].is_number() ? ttfts[i].get<double>() : 0;
      r.ok = ttft > 0;
      if (r.ok) {
        r.first_token_ns = SecondsToNanos(ttft);
        double end = ttft;
        r.events = 1;
        if (j.contains("itls") && i < j["itls"].size() && j["itls"][i].is_array()) {
          for (auto& g : j["itls"][i]) end += g.get<double>();
          r.events += static_cast<int32_t>(j["itls"][i].size());
        }
        r.end_ns = SecondsToNanos(end);
      } else if (j.contains("errors") && i < j["errors"].size()) {
        r.failure = "other";
      }
      rows.push_back(r);
    }
  }
  pr.points.push_back(std::move(p));
  pr.requests.push_back(std::move(rows));
  return pr;
}

Result<std::vector<ParsedRun>> ParseInferenceX(const json& records, const std::string& file) {
  using Group = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Group, ParsedRun> groups;
  std::vector<Group> order;
  std::map<std::string, int> seen;  // configuration -> repetitions so far
  for (size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    const std::string where = file + ": record " + std::to_string(i);
    if (!r.is_object()) return InvalidArgument(where + ": expected an object");
    for (const char* required : {"hw", "conc", "tput_per_gpu", "output_tput_per_gpu"}) {
      if (!r.contains(required)) {
        return InvalidArgument(where + ": field '" + required +
                               "' is missing; is this an InferenceX agg_*.json result?");
      }
    }
    auto conc = Number(r, "conc");
    auto tput = Number(r, "tput_per_gpu");
    auto out_tput = Number(r, "output_tput_per_gpu");
    if (!conc || !tput || !out_tput) {
      return InvalidArgument(where + ": conc, tput_per_gpu and output_tput_per_gpu must be numbers");
    }
    const std::string hw = Text(r, "hw"), fw = Text(r, "framework"), prec = Text(r, "precision"),
                      model = Text(r, "model"), isl = Text(r, "isl"), osl = Text(r, "osl");
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
    p.load_value = *conc;
    for (const char* k : {"tp", "ep", "dp_attention", "spec_decoding", "image", "disagg",
                          "prefill_tp", "decode_tp", "prefill_ep", "decode_ep", "isl", "osl"})
      if (r.contains(k)) p.settings[k] = Text(r, k);
    std::string variant;
    for (const char* k : {"tp", "ep", "dp_attention", "spec_decoding", "prefill_tp", "decode_tp"})
      if (r.contains(k)) variant += std::string("|") + k + "=" + Text(r, k);
    int gpus = 0;
    if (auto n = Number(r, "num_gpus")) {
      gpus = static_cast<int>(*n);
    } else if (Number(r, "num_prefill_gpu") && Number(r, "num_decode_gpu")) {
      gpus = static_cast<int>(*Number(r, "num_prefill_gpu") + *Number(r, "num_decode_gpu"));
    } else if (auto tp = Number(r, "tp")) {
      gpus = static_cast<int>(*tp);
    }
    if (gpus < 1) gpus = 1;
    // Identical configuration at the same concurrency: a repetition.
    const int rep = seen[pr.run.system + "|" + PointKey(p.workload, "concurrency", *conc, 0) + variant]++;
    p.repetition = rep;
    p.key = PointKey(p.workload, p.load_kind, p.load_value, rep) + variant;
    PointMetrics& m = p.metrics;
    m.num_gpus = gpus;
    m.total_tput_per_gpu = *tput;
    m.output_tput_per_gpu = *out_tput;
    m.total_token_throughput = *tput * gpus;
    m.output_throughput = *out_tput * gpus;
    auto ms = [&](const std::string& k) { return Number(r, k).value_or(0) * 1000.0; };
    m.mean_ttft_ms = ms("mean_ttft");
    m.median_ttft_ms = ms("median_ttft");
    m.p99_ttft_ms = ms("p99_ttft");
    m.mean_tpot_ms = ms("mean_tpot");
    m.median_tpot_ms = ms("median_tpot");
    m.p99_tpot_ms = ms("p99_tpot");
    m.mean_itl_ms = ms("mean_itl");
    m.median_itl_ms = ms("median_itl");
    m.p99_itl_ms = ms("p99_itl");
    m.mean_e2el_ms = ms("mean_e2el");
    m.median_e2el_ms = ms("median_e2el");
    m.p99_e2el_ms = ms("p99_e2el");
    if (auto iv = Number(r, "median_intvty")) {
      m.interactivity = *iv;
    } else {
      m.interactivity = m.median_tpot_ms > 0 ? 1000.0 / m.median_tpot_ms : 0;
    }
    p.summary_json = r.dump();
    pr.points.push_back(std::move(p));
    pr.requests.emplace_back();
  }
  std::vector<ParsedRun> out;
  for (auto& g : order) out.push_back(std::move(groups[g]));
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
                                               const ImportOptions& options) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(file + ": not valid JSON");
  if (j.is_array()) {
    if (j.empty()) return InvalidArgument(file + ": an empty list has no results to import");
    return ParseInferenceX(j, file);
  }
  if (!j.is_object()) return InvalidArgument(file + ": expected a JSON object or list");
  if (j.contains("tput_per_gpu")) return ParseInferenceX(json::array({j}), file);
  if (j.contains("output_throughput")) {
    FRONTIER_ASSIGN_OR_RETURN(ParsedRun pr, ParseVllm(j, file, options));
    std::vector<ParsedRun> out;
    out.push_back(std::move(pr));
    return out;
  }
  return InvalidArgument(file +
                         ": neither a vLLM result (no 'output_throughput') nor an InferenceX "
                         "result (no 'tput_per_gpu')");
}

Result<std::vector<RunInfo>> ImportFile(Store& store, const std::string& path,
                                        const ImportOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ImportText(store, text, path, options);
}

Result<std::vector<RunInfo>> ImportText(Store& store, const std::string& text,
                                        const std::string& file_name, const ImportOptions& options) {
  Result<std::vector<ParsedRun>> result = InvalidArgument(file_name + ": not parsed");
  try {
    result = ParseResultFile(text, file_name, options);
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong type deep in the file (a string among per-request numbers ...).
    return InvalidArgument(file_name + ": a value has the wrong type (" + e.what() + ")");
  }
  FRONTIER_ASSIGN_OR_RETURN(auto parsed, std::move(result));
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

namespace {

nlohmann::ordered_json PointJson(const PointRecord& p) {
  const PointMetrics& m = p.metrics;
  nlohmann::ordered_json j = {{"id", p.id},
            {"key", p.key},
            {"workload", p.workload},
            {"load_kind", p.load_kind},
            {"load_value", p.load_value},
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
               {"system", r.system},   {"source", r.source},   {"status", r.status},
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
