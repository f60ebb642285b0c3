// Per-request records as JSON and JSONL (--requests-jsonl): written as the
// run goes, read back with every field's type and bound checked.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "core/limits.h"
#include "metrics/json_fields.h"
#include "metrics/result_json.h"

namespace frontier::metrics {

using nlohmann::json;

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
  if (r.server_timings.given()) {
    const ServerTimings& t = r.server_timings;
    j["server_timings"] = {{"prompt_n", t.prompt_n}, {"prompt_ms", t.prompt_ms},
                           {"predicted_n", t.predicted_n}, {"predicted_ms", t.predicted_ms}};
  }
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
  // Each field with its type and range, named when wrong: a record edited by
  // hand (or forged) is refused here, never wrapped or taken as 0.
  constexpr int64_t kTokens = bounds::kMaxRequestTokens;
  constexpr auto kMaxNs = static_cast<int64_t>(bounds::kMaxDurationS * 1e9);
  const JsonFields f(j, "request record");
  RequestRecord r;
  FRONTIER_ASSIGN_OR_RETURN(r.id, f.RequiredInteger("id", 0, bounds::kMaxRequests, "every record has its id"));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<bool> warmup, f.Bool("warmup"));
  r.warmup = warmup.value_or(false);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<bool> ok, f.Bool("ok"));
  if (!ok) return InvalidArgument("request record: field 'ok' is missing; every record says whether it succeeded");
  r.ok = *ok;
  FRONTIER_ASSIGN_OR_RETURN(r.failure, f.Name("failure"));
  FRONTIER_ASSIGN_OR_RETURN(r.failure_detail, f.Name("failure_detail"));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> http_status, f.Integer("http_status", 0, 999));
  r.http_status = static_cast<int>(http_status.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> prompt, f.Integer("prompt_tokens", 0, kTokens));
  r.prompt_tokens = static_cast<int32_t>(prompt.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> output, f.Integer("output_tokens", 0, kTokens));
  r.output_tokens = static_cast<int32_t>(output.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> requested, f.Integer("requested_output_tokens", 0, kTokens));
  r.requested_output_tokens = static_cast<int32_t>(requested.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<bool> usage, f.Bool("usage_reported"));
  r.usage_reported = usage.value_or(false);
  FRONTIER_ASSIGN_OR_RETURN(r.usage_conflict, f.Name("usage_conflict"));
  if (const json* t = f.Find("server_timings"); t != nullptr && t->is_object()) {
    const JsonFields tf(*t, "request record: server_timings");
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> pn, tf.Integer("prompt_n", -1, kTokens));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> pm, tf.Number("prompt_ms", -1, bounds::kMaxLatencyMs));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> dn, tf.Integer("predicted_n", -1, kTokens));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> dm, tf.Number("predicted_ms", -1, bounds::kMaxLatencyMs));
    r.server_timings.prompt_n = static_cast<int>(pn.value_or(-1));
    r.server_timings.prompt_ms = pm.value_or(-1.0);
    r.server_timings.predicted_n = static_cast<int>(dn.value_or(-1));
    r.server_timings.predicted_ms = dm.value_or(-1.0);
  }
  FRONTIER_ASSIGN_OR_RETURN(r.scheduled_ns, f.RequiredInteger("scheduled_ns", 0, kMaxNs, "every record has it"));
  FRONTIER_ASSIGN_OR_RETURN(r.sent_ns, f.RequiredInteger("sent_ns", 0, kMaxNs, "every record has it"));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> first, f.Integer("first_token_ns", -1, kMaxNs));
  r.first_token_ns = first.value_or(-1);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> end, f.Integer("end_ns", -1, kMaxNs));
  r.end_ns = end.value_or(-1);
  if (const json* ev = f.Find("events"); ev != nullptr) {
    if (!ev->is_array()) return InvalidArgument("request record: events must be a list of [t_ns, tokens] pairs");
    r.events.reserve(ev->size());
    for (size_t i = 0; i < ev->size(); ++i) {
      const json& e = (*ev)[i];
      const std::string at = "events[" + std::to_string(i) + "]";
      if (!e.is_array() || e.size() != 2)
        return InvalidArgument("request record: " + at + " must be a [t_ns, tokens] pair, got " + ShownJson(e));
      FRONTIER_ASSIGN_OR_RETURN(const int64_t t, f.IntegerValue(e[0], at + ".t_ns", 0, kMaxNs));
      FRONTIER_ASSIGN_OR_RETURN(const int64_t k, f.IntegerValue(e[1], at + ".tokens", 0, kTokens));
      r.events.push_back({t, static_cast<int32_t>(k)});
    }
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
