#include "metrics/result_json.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/atomic_file.h"
#include "core/version.h"

namespace frontier::metrics {
namespace {

using nlohmann::json;

struct NamedDistribution {
  const char* name;
  Distribution Summary::*field;
};

// vLLM's four metrics first, then frontier's two.
constexpr NamedDistribution kDistributions[] = {
    {"ttft", &Summary::ttft_ms},   {"tpot", &Summary::tpot_ms},
    {"itl", &Summary::itl_ms},     {"e2el", &Summary::e2el_ms},
    {"icl", &Summary::icl_ms},     {"client_queue_time", &Summary::client_queue_ms},
};

void PutDistribution(json& j, const std::string& name, const Distribution& d) {
  j["mean_" + name + "_ms"] = d.mean;
  j["median_" + name + "_ms"] = d.median;
  j["std_" + name + "_ms"] = d.std;
  for (const auto& [p, v] : d.percentiles) j[PercentileKey(p) + "_" + name + "_ms"] = v;
}

double NumberOr(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

Distribution ReadDistribution(const json& doc, const std::string& name) {
  Distribution d;
  d.mean = NumberOr(doc, ("mean_" + name + "_ms").c_str());
  d.median = NumberOr(doc, ("median_" + name + "_ms").c_str());
  d.std = NumberOr(doc, ("std_" + name + "_ms").c_str());
  const std::string suffix = "_" + name + "_ms";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() <= suffix.size() + 1 || k[0] != 'p' || !it->is_number()) continue;
    if (k.compare(k.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string num = k.substr(1, k.size() - 1 - suffix.size());
    char* end = nullptr;
    const double p = std::strtod(num.c_str(), &end);
    if (end != num.c_str() + num.size() || !(p >= 0 && p <= 100)) continue;
    d.percentiles.emplace_back(p, it->get<double>());
  }
  std::sort(d.percentiles.begin(), d.percentiles.end());
  return d;
}

}  // namespace

json ResultToJson(const RunResult& run, const Summary& s, const SummaryOptions& o,
                  const json* extra) {
  json j = json::object();
  j["date"] = run.start_time_utc;
  j["model_id"] = run.model;
  j["duration"] = s.duration_s;
  j["completed"] = s.completed;
  j["failed"] = s.failed;
  j["total_input_tokens"] = s.total_input_tokens;
  j["total_output_tokens"] = s.total_output_tokens;
  j["request_throughput"] = s.request_throughput;
  if (s.goodput_requested) {
    j["request_goodput"] = s.request_goodput;
  } else {
    j["request_goodput"] = nullptr;  // vLLM writes null when no SLO is given
  }
  j["output_throughput"] = s.output_throughput;
  j["total_token_throughput"] = s.total_token_throughput;
  j["max_concurrent_requests"] = s.max_concurrent_requests;
  for (const auto& nd : kDistributions) PutDistribution(j, nd.name, s.*(nd.field));
  j["interactivity"] = s.interactivity;
  j["num_gpus"] = std::max(1, o.num_gpus);
  j["output_throughput_per_gpu"] = s.output_throughput_per_gpu;
  j["total_token_throughput_per_gpu"] = s.total_token_throughput_per_gpu;
  j["warmup_requests"] = s.warmup;
  j["usage_from_server"] = s.usage_from_server;
  j["failures_by_reason"] = json::object();
  for (const auto& [reason, n] : s.failures_by_reason) j["failures_by_reason"][reason] = n;
  // Written only when they apply, so single-turn results keep their fields.
  if (s.cancelled > 0) j["cancelled"] = s.cancelled;
  if (s.ideal_prefix_hit_rate >= 0) {
    j["ideal_prefix_hit_rate"] = s.ideal_prefix_hit_rate;
    j["ideal_hit_block_tokens"] = s.ideal_hit_block_tokens;
  }
  if (s.has_sessions) {
    j["sessions_completed"] = s.sessions_completed;
    j["sessions_failed"] = s.sessions_failed;
    j["session_end_reasons"] = json::object();
    for (const auto& [reason, n] : s.session_end_reasons) j["session_end_reasons"][reason] = n;
    PutDistribution(j, "turn_ttft", s.turn_ttft_ms);
    PutDistribution(j, "turn_e2el", s.turn_e2el_ms);
    PutDistribution(j, "session_latency", s.session_latency_ms);
  }
  // The steady-state span's throughputs beside the whole run's (null: no steady span).
  const Timeslices& ts = s.timeslices;
  j["steady_output_throughput"] = ts.steady ? json(ts.steady_output_throughput) : json(nullptr);
  j["steady_request_throughput"] = ts.steady ? json(ts.steady_request_throughput) : json(nullptr);
  if (!ts.slices.empty()) j["timeslices"] = TimeslicesToJson(ts);
  if (extra && extra->is_object()) {
    for (auto it = extra->begin(); it != extra->end(); ++it) j[it.key()] = *it;
  }

  json f = json::object();
  f["format_version"] = kResultFormatVersion;
  f["version"] = run.frontier_version.empty() ? std::string(kVersion) : run.frontier_version;
  f["command_line"] = run.command_line;
  f["source"] = run.source;
  f["base_url"] = run.base_url;
  f["endpoint"] = run.endpoint;
  f["model"] = run.model;
  f["served_model"] = run.served_model;
  f["start_time_utc"] = run.start_time_utc;
  f["host"] = run.host;
  f["num_gpus"] = run.num_gpus;
  f["percentiles"] = o.percentiles;
  f["requested_settings"] = run.requested_settings;
  f["effective_settings"] = run.effective_settings;
  f["interrupted"] = run.interrupted;
  j["frontier"] = std::move(f);
  if (run.server_metrics) j["server_metrics"] = ServerMetricsToJson(*run.server_metrics);
  return j;
}

json ServerMetricsToJson(const ServerMetrics& m) {
  json j = json::object();
  j["source"] = m.source;
  j["kind"] = m.kind;
  auto or_null = [](double v) { return v < 0 ? json(nullptr) : json(v); };
  j["prefix_cache_queries"] = or_null(m.prefix_cache_queries);
  j["prefix_cache_hits"] = or_null(m.prefix_cache_hits);
  j["prefix_cache_hit_rate"] = or_null(m.prefix_cache_hit_rate);
  j["scrapes"] = m.scrapes;
  j["scrape_failures"] = m.scrape_failures;
  if (!m.last_error.empty()) j["last_error"] = m.last_error;
  // Samples as columns: one time axis, one array per series (null where a
  // scrape lacked it), so a long run stays compact and easy to plot.
  json t = json::array();
  std::map<std::string, json> series;
  for (const auto& s : m.samples)
    for (const auto& [k, v] : s.values) series.try_emplace(k, json::array());
  for (const auto& s : m.samples) {
    t.push_back(static_cast<double>(s.t_ns) / 1e9);
    for (auto& [k, col] : series) {
      auto it = s.values.find(k);
      col.push_back(it == s.values.end() || !std::isfinite(it->second) ? json(nullptr) : json(it->second));
    }
  }
  json samples = json::object();
  samples["t_s"] = std::move(t);
  for (auto& [k, col] : series) samples[k] = std::move(col);
  j["samples"] = std::move(samples);
  return j;
}

Status WriteResultJson(const std::string& path, const RunResult& run, const Summary& s,
                       const SummaryOptions& o, const json* extra) {
  return WriteFileAtomically(path, ResultToJson(run, s, o, extra).dump(2) + "\n");
}

Result<Summary> SummaryFromResultJson(const json& doc, const std::string& source_name) {
  if (!doc.is_object() || !doc.contains("completed") || !doc["completed"].is_number())
    return InvalidArgument(source_name + ": not a benchmark result (no numeric \"completed\" field)");
  Summary s;
  s.completed = static_cast<int64_t>(NumberOr(doc, "completed"));
  s.failed = static_cast<int64_t>(NumberOr(doc, "failed"));
  s.warmup = static_cast<int64_t>(NumberOr(doc, "warmup_requests"));
  s.total_input_tokens = static_cast<int64_t>(NumberOr(doc, "total_input_tokens"));
  s.total_output_tokens = static_cast<int64_t>(NumberOr(doc, "total_output_tokens"));
  s.duration_s = NumberOr(doc, "duration");
  s.request_throughput = NumberOr(doc, "request_throughput");
  s.goodput_requested = doc.contains("request_goodput") && doc["request_goodput"].is_number();
  s.request_goodput = NumberOr(doc, "request_goodput");
  s.output_throughput = NumberOr(doc, "output_throughput");
  s.total_token_throughput = NumberOr(doc, "total_token_throughput");
  const double gpus = std::max(1.0, NumberOr(doc, "num_gpus", 1));
  s.output_throughput_per_gpu = NumberOr(doc, "output_throughput_per_gpu", s.output_throughput / gpus);
  s.total_token_throughput_per_gpu =
      NumberOr(doc, "total_token_throughput_per_gpu", s.total_token_throughput / gpus);
  s.max_concurrent_requests = static_cast<int64_t>(NumberOr(doc, "max_concurrent_requests"));
  if (doc.contains("usage_from_server") && doc["usage_from_server"].is_boolean())
    s.usage_from_server = doc["usage_from_server"].get<bool>();
  for (const auto& nd : kDistributions)
    s.*(nd.field) = ReadDistribution(doc, nd.name);
  s.interactivity = NumberOr(doc, "interactivity",
                             s.tpot_ms.median > 0 ? 1000.0 / s.tpot_ms.median : 0.0);
  if (doc.contains("failures_by_reason") && doc["failures_by_reason"].is_object()) {
    for (auto it = doc["failures_by_reason"].begin(); it != doc["failures_by_reason"].end(); ++it)
      if (it->is_number()) s.failures_by_reason[it.key()] = it->get<int64_t>();
  }
  s.cancelled = static_cast<int64_t>(NumberOr(doc, "cancelled"));
  if (doc.contains("steady_output_throughput") && doc["steady_output_throughput"].is_number()) {
    s.timeslices.steady = true;
    s.timeslices.steady_output_throughput = NumberOr(doc, "steady_output_throughput");
    s.timeslices.steady_request_throughput = NumberOr(doc, "steady_request_throughput");
  }
  s.ideal_prefix_hit_rate = NumberOr(doc, "ideal_prefix_hit_rate", -1);
  s.ideal_hit_block_tokens = static_cast<int>(NumberOr(doc, "ideal_hit_block_tokens"));
  if (doc.contains("sessions_completed")) {
    s.has_sessions = true;
    s.sessions_completed = static_cast<int64_t>(NumberOr(doc, "sessions_completed"));
    s.sessions_failed = static_cast<int64_t>(NumberOr(doc, "sessions_failed"));
    if (doc.contains("session_end_reasons") && doc["session_end_reasons"].is_object())
      for (auto it = doc["session_end_reasons"].begin(); it != doc["session_end_reasons"].end(); ++it)
        if (it->is_number()) s.session_end_reasons[it.key()] = it->get<int64_t>();
    s.turn_ttft_ms = ReadDistribution(doc, "turn_ttft");
    s.turn_e2el_ms = ReadDistribution(doc, "turn_e2el");
    s.session_latency_ms = ReadDistribution(doc, "session_latency");
  }
  return s;
}

Result<Summary> ReadResultSummary(const std::string& path) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument(path + ": not valid JSON");
  return SummaryFromResultJson(doc, path);
}

json RequestRecordToJson(const RequestRecord& r) {
  json j = json::object();
  j["id"] = r.id;
  j["warmup"] = r.warmup;
  j["ok"] = r.ok;
  j["failure"] = r.failure;
  j["failure_detail"] = r.failure_detail;
  j["http_status"] = r.http_status;
  j["prompt_tokens"] = r.prompt_tokens;
  j["output_tokens"] = r.output_tokens;
  j["requested_output_tokens"] = r.requested_output_tokens;
  j["usage_reported"] = r.usage_reported;
  if (!r.usage_conflict.empty()) j["usage_conflict"] = r.usage_conflict;
  if (r.cancelled) j["cancelled"] = true;
  if (r.session_id >= 0) {
    j["session_id"] = r.session_id;
    j["turn"] = r.turn;
    if (r.subagent >= 0) j["subagent"] = r.subagent;
  }
  j["scheduled_ns"] = r.scheduled_ns;
  j["sent_ns"] = r.sent_ns;
  j["first_token_ns"] = r.first_token_ns;
  j["end_ns"] = r.end_ns;
  json ev = json::array();
  for (const auto& e : r.events) ev.push_back({e.t_ns, e.tokens});
  j["events"] = std::move(ev);
  return j;
}

std::string RequestRecordToJsonLine(const RequestRecord& r) {
  // Invalid UTF-8 in a server's error body is replaced, never a throw.
  return RequestRecordToJson(r).dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<RequestRecord> RequestRecordFromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("request record: not a JSON object");
  RequestRecord r;
  try {
    r.id = j.at("id").get<int64_t>();
    r.warmup = j.value("warmup", false);
    r.ok = j.at("ok").get<bool>();
    r.failure = j.value("failure", "");
    r.failure_detail = j.value("failure_detail", "");
    r.http_status = j.value("http_status", 0);
    r.prompt_tokens = j.value("prompt_tokens", 0);
    r.output_tokens = j.value("output_tokens", 0);
    r.requested_output_tokens = j.value("requested_output_tokens", 0);
    r.usage_reported = j.value("usage_reported", false);
    r.usage_conflict = j.value("usage_conflict", "");
    r.scheduled_ns = j.at("scheduled_ns").get<Nanos>();
    r.sent_ns = j.at("sent_ns").get<Nanos>();
    r.first_token_ns = j.value("first_token_ns", Nanos{-1});
    r.end_ns = j.value("end_ns", Nanos{-1});
    for (const auto& e : j.value("events", json::array()))
      r.events.push_back({e.at(0).get<Nanos>(), e.at(1).get<int32_t>()});
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("request record: ") + e.what());
  }
  return r;
}

RequestJsonlWriter::~RequestJsonlWriter() { (void)Close(); }

Status RequestJsonlWriter::Open(const std::string& path) {
  (void)Close();
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) return IoError("cannot create --requests-jsonl file " + path + ": " + std::strerror(errno));
  path_ = path;
  return Status::Ok();
}

Status RequestJsonlWriter::Write(const RequestRecord& record) {
  if (!file_) return Internal("RequestJsonlWriter::Write before Open");
  std::string line = RequestRecordToJsonLine(record);
  line.push_back('\n');
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    return IoError("cannot write " + path_ + ": " + std::strerror(errno));
  return Status::Ok();
}

Status RequestJsonlWriter::Close() {
  if (!file_) return Status::Ok();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return IoError("cannot close " + path_ + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace frontier::metrics
