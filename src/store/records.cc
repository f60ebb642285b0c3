#include "store/records.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/host_name.h"
#include "core/parse.h"
#include "core/version.h"
#include "metrics/result_json.h"
#include "metrics/verdict_label.h"
#include "store/schema.h"

namespace frontier::store {

SystemStatus ParseSystemStatus(std::string_view text) {
  if (text == "ok") return SystemStatus{};
  constexpr std::string_view kBroken = "broken: ";
  if (text.substr(0, kBroken.size()) == kBroken) return SystemStatus::Broken(std::string(text.substr(kBroken.size())));
  return SystemStatus::Broken(std::string(text));
}

std::string RunInfo::Label() const {
  return sweep + "/" + system + "#" + std::to_string(id);
}

std::map<std::string, std::string> RunProvenance(const std::string& command_line) {
  return {{"frontier_version", kVersion},
          {"command_line", command_line},
          {"host", HostName()},
          {"started_utc", UtcTimestampNow()}};
}

double P99(const metrics::Distribution& d) { return d.At(99).value_or(0.0); }

void SetP99(metrics::Distribution& d, double value) {
  for (auto& [p, v] : d.percentiles) {
    if (std::abs(p - 99) < 1e-9) {  // as Distribution::At finds it
      v = value;
      return;
    }
  }
  d.percentiles.emplace_back(99, value);
}

namespace {

// %g's six digits where they keep the value (every key stored so far), else
// the fewest digits that do.
std::string KeyNumber(double v) {
  for (int digits = 6; digits < 17; ++digits) {
    std::string text = FormatSignificant(v, digits);
    if (std::strtod(text.c_str(), nullptr) == v) return text;
  }
  return FormatSignificant(v, 17);
}

}  // namespace

std::string PointKey(const std::string& workload, LoadKind load_kind, double load_value, int repetition) {
  return workload + "|" + LoadKindName(load_kind) + "=" + KeyNumber(load_value) + "|rep=" + std::to_string(repetition);
}

void SetPointLoad(std::optional<int64_t> max_concurrency, std::optional<double> request_rate, PointRecord* p) {
  if (max_concurrency && !(request_rate && std::isfinite(*request_rate))) {
    p->load_kind = LoadKind::kConcurrency;
    p->load_value = static_cast<double>(*max_concurrency);
    return;
  }
  p->load_kind = LoadKind::kRequestRate;
  p->load_value = request_rate && std::isfinite(*request_rate) ? *request_rate : bounds::kInfiniteRate;
}

PointSeries SeriesFromRun(const RunResult& run, const metrics::Summary& summary) {
  PointSeries out;
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;  // a server's odd bytes, never a throw
  if (run.server_metrics) out.server_metrics_json = metrics::ServerMetricsToJson(*run.server_metrics).dump(-1, ' ', false, kReplace);
  if (!summary.timeslices.slices.empty())
    out.timeslices_json = metrics::TimeslicesToJson(summary.timeslices).dump(-1, ' ', false, kReplace);
  return out;
}

std::string SummaryToJson(const metrics::Summary& s) {
  // metrics owns the keys; the store only chooses the text (compact, odd bytes replaced, never a throw).
  return metrics::SummaryToJson(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The fields a stored request row and a run's request record share, by the
// same names and types: copied one way to store a run, the other to read it back.
template <class From, class To>
void CopySharedFields(const From& from, To& to) {
  to.ok = from.ok;
  to.warmup = from.warmup;
  to.prompt_tokens = from.prompt_tokens;
  to.output_tokens = from.output_tokens;
  to.scheduled_ns = from.scheduled_ns;
  to.sent_ns = from.sent_ns;
  to.first_token_ns = from.first_token_ns;
  to.end_ns = from.end_ns;
  to.failure = from.failure;
  to.http_status = from.http_status;
}

}  // namespace

std::vector<RequestRow> RowsFromRun(const RunResult& run) {
  std::vector<RequestRow> rows;
  rows.reserve(run.requests.size());
  for (const auto& r : run.requests) {
    RequestRow row;
    row.idx = static_cast<int64_t>(rows.size());  // position: unique even when warm-up ids repeat
    CopySharedFields(r, row);
    row.events = static_cast<int32_t>(r.events.size());
    rows.push_back(std::move(row));
  }
  return rows;
}

RunResult RunFromRows(const std::vector<RequestRow>& rows) {
  RunResult run;
  run.requests.reserve(rows.size());
  for (const auto& row : rows) {
    RequestRecord r;
    r.id = row.idx;
    CopySharedFields(row, r);
    r.cancelled = row.failure == failure::kCancelled;
    run.requests.push_back(std::move(r));
  }
  return run;
}

PointRecord PointFromRun(const RunResult& run, const metrics::Summary& summary, int num_gpus) {
  PointRecord r;
  r.source = run.source == RunSource::kSimulated ? Source::kSimulated : Source::kMeasured;
  r.settings = run.effective_settings;
  r.num_gpus = num_gpus;
  r.metrics = summary;
  r.summary_json = store::SummaryToJson(summary);
  r.series = SeriesFromRun(run, summary);
  r.band = run.band;
  return r;
}

std::string BandFlagsToJson(const std::vector<std::string>& flags) { return nlohmann::json(flags).dump(); }

Result<std::vector<std::string>> BandFlagsFromJson(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::vector<std::string> out;
  bool ok = j.is_array();
  for (size_t i = 0; ok && i < j.size(); ++i) {
    ok = j[i].is_string();
    if (ok) out.push_back(j[i].get<std::string>());
  }
  if (!ok) return InvalidArgument("band_flags must be a JSON array of strings, got '" + text.substr(0, 60) + "'");
  return out;
}

namespace {

// A band's numbers within their bounds (none: OK).
Status CheckBand(const PointRecord& p) {
  if (!p.band) return Status::Ok();
  FRONTIER_RETURN_IF_ERROR(CheckRange("band_half_width", p.band->half_width, 0, metrics::kMaxBandHalfWidth));
  return CheckRange("band_points", int64_t{p.band->points}, 0, metrics::kMaxBandPoints);
}

}  // namespace

Status CheckPoint(const PointRecord& p, const std::string& where) {
  using namespace bounds;
  auto check = [&]() -> Status {
    const metrics::Summary& m = p.metrics;
    FRONTIER_RETURN_IF_ERROR(CheckRange("num_gpus", int64_t{p.num_gpus}, 1, kMaxGpus));
    for (int i = 0; i < kNumIntColumns; ++i) {
      const IntColumn& c = kIntColumns[i];
      FRONTIER_RETURN_IF_ERROR(CheckRange(c.name, m.*c.member, 0, c.max));
    }
    FRONTIER_RETURN_IF_ERROR(CheckRange("repetition", int64_t{p.repetition}, 0, kMaxRepetition));
    FRONTIER_RETURN_IF_ERROR(CheckRange("attempts", int64_t{p.attempts}, 1, kMaxAttempts));
    switch (p.load_kind) {
      case LoadKind::kConcurrency:
        FRONTIER_RETURN_IF_ERROR(
            CheckRange("load_value (concurrency)", p.load_value, 1, static_cast<double>(kMaxConcurrency)));
        break;
      case LoadKind::kRequestRate:
        if (p.load_value != kInfiniteRate)
          FRONTIER_RETURN_IF_ERROR(CheckRange("load_value (request rate)", p.load_value, 1e-9, kMaxRequestRate));
        break;
      case LoadKind::kProbe:
        // A `frontier probe` measurement (probe/record.h): its size (GEMM rows, bytes, ...).
        FRONTIER_RETURN_IF_ERROR(CheckRange("load_value (probe size)", p.load_value, 0, kMaxProbeSize));
        break;
    }
    for (int i = 0; i < kNumDoubleColumns; ++i) {
      const DoubleColumn& c = kDoubleColumns[i];
      FRONTIER_RETURN_IF_ERROR(CheckRange(c.name, c.Get(m), 0, c.max));
    }
    FRONTIER_RETURN_IF_ERROR(CheckBand(p));
    FRONTIER_RETURN_IF_ERROR(ParseVerdict(p.verdict_json).status());
    return ParseTrial(p.trial_json).status();
  };
  Status s = check();
  return s.ok() || where.empty() ? s : s.WithContext(where);
}

Result<VerdictView> ParseVerdict(const std::string& verdict_json) {
  VerdictView v;
  if (verdict_json.empty()) return v;
  const auto j = nlohmann::json::parse(verdict_json, nullptr, /*allow_exceptions=*/false);
  const auto result = j.is_object() ? j.find("result") : j.end();
  const std::optional<bool> valid = result != j.end() && result->is_string()
                                        ? metrics::ParseVerdictLabel(result->get_ref<const std::string&>())
                                        : std::nullopt;
  if (!valid) {
    return InvalidArgument(std::string("verdict_json must be a JSON object whose \"result\" is ") +
                           metrics::VerdictLabel(true) + " or " + metrics::VerdictLabel(false) + ", got '" +
                           verdict_json.substr(0, 60) + "'");
  }
  v.judged = true;
  v.valid = *valid;
  if (auto sc = j.find("scenario"); sc != j.end() && sc->is_string()) v.scenario = sc->get<std::string>();
  if (auto rs = j.find("reasons"); rs != j.end()) {
    if (!rs->is_array()) return InvalidArgument("verdict_json.reasons must be an array of strings");
    for (const auto& r : *rs) {
      if (!r.is_string()) return InvalidArgument("verdict_json.reasons must be an array of strings");
      if (v.first_reason.empty()) v.first_reason = r.get<std::string>();
    }
  }
  return v;
}

Result<TrialView> ParseTrial(const std::string& trial_json) {
  TrialView t;
  if (trial_json.empty()) return t;
  const auto j = nlohmann::json::parse(trial_json, nullptr, /*allow_exceptions=*/false);
  const auto index = j.is_object() ? j.find("index") : j.end();
  if (!j.is_object() || index == j.end() || !index->is_number_integer()) {
    return InvalidArgument("trial_json must be a JSON object with an integer \"index\", got '" +
                           trial_json.substr(0, 60) + "'");
  }
  t.is_trial = true;
  t.index = index->get<int64_t>();
  if (auto d = j.find("decision"); d != j.end() && d->is_string()) t.decision = d->get<std::string>();
  if (auto st = j.find("step"); st != j.end() && st->is_string()) t.step = st->get<std::string>();
  return t;
}

Status CheckVerdictAndTrial(const PointRecord& p) {
  Status s = ParseVerdict(p.verdict_json).status();
  if (s.ok()) s = ParseTrial(p.trial_json).status();
  if (s.ok()) s = CheckBand(p);
  return s.ok() ? s : s.WithContext("point '" + p.key + "'");
}

Status CheckPointForStore(const PointRecord& p, const std::vector<RequestRow>& requests) {
  const std::string where = "point '" + p.key + "'";
  FRONTIER_RETURN_IF_ERROR(CheckPoint(p, where));
  for (const RequestRow& r : requests)
    FRONTIER_RETURN_IF_ERROR(CheckRequestRow(r, where + ", request " + std::to_string(r.idx)));
  return Status::Ok();
}

Status CheckRequestRow(const RequestRow& r, const std::string& where) {
  using namespace bounds;
  auto check = [&]() -> Status {
    FRONTIER_RETURN_IF_ERROR(CheckRange("idx", r.idx, 0, kMaxRequests));
    FRONTIER_RETURN_IF_ERROR(CheckRange("prompt_tokens", int64_t{r.prompt_tokens}, 0, kMaxRequestTokens));
    FRONTIER_RETURN_IF_ERROR(CheckRange("output_tokens", int64_t{r.output_tokens}, 0, kMaxRequestTokens));
    FRONTIER_RETURN_IF_ERROR(CheckRange("events", int64_t{r.events}, 0, kMaxRequestTokens));
    FRONTIER_RETURN_IF_ERROR(CheckRange("http_status", int64_t{r.http_status}, 0, 999));
    return Status::Ok();
  };
  Status s = check();
  return s.ok() ? s : s.WithContext(where);
}

}  // namespace frontier::store
