// row_codec.h: rows of the results database to records and back, once for
// every back end. A back end supplies a Row (the current result row) and a
// Binder (the parameters of a statement from schema.h's sql::):
//
//   Row:    std::string Text(int col); int64_t Int(int col); double Real(int col);
//           Result<int64_t> Int(int col, const std::string& field, int64_t min, int64_t max)
//             (InvalidArgument naming the field unless an integer in [min, max]);
//   Binder: void Bind(int param, const std::string&); void Bind(int param, int64_t);
//           void Bind(int param, double)   (params counted from 1).
//
// Decoding checks every number against records.h's bounds; a row outside them
// is an error the back end reports as a damaged row.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/redact.h"
#include "metrics/result_json.h"
#include "store/schema.h"
#include "store/store.h"

namespace frontier::store::codec {

// Secrets never reach the database, and one stored before they were redacted
// never leaves it: runs and points are redacted (core/redact.h) both when
// bound and when decoded. A bench or search run's plan text is its command
// line; a sweep's is its plan file.
inline std::string RedactPlanText(const std::string& text) {
  return text.rfind("frontier ", 0) == 0 ? RedactCommandLine(text) : RedactText(text);
}

// A row of sql::SelectRuns into `r` (r.id is set first, for the message);
// InvalidArgument when its source is not one the store writes.
template <class Row>
Status DecodeRun(Row& s, RunInfo& r) {
  r.id = s.Int(0);
  r.sweep = s.Text(1);
  r.plan_hash = s.Text(2);
  if (std::string text = s.Text(3); !text.empty()) r.plan_text = RedactPlanText(text);
  r.system = RedactUrl(s.Text(4));
  FRONTIER_ASSIGN_OR_RETURN(r.source, ParseSource(s.Text(5)));
  r.status = ParseSystemStatus(s.Text(6));
  r.created_utc = s.Text(7);
  r.config = RedactProvenance(JsonToMap(s.Text(8)));
  r.provenance = RedactProvenance(JsonToMap(s.Text(9)));
  r.search_json = s.Text(10);
  return Status::Ok();
}

// The key of a plan text in the plans table (kPlansVersion): two 64-bit
// FNV-1a hashes of the text (different offset bases) and its length, so that
// texts that differ never share a row in practice.
inline std::string PlanKey(const std::string& text) {
  uint64_t a = 14695981039346656037ull, b = 1099511628211ull * 31;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 1099511628211ull;
  }
  char key[64];
  std::snprintf(key, sizeof key, "%016llx%016llx-%zu", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b), text.size());
  return key;
}

// A run's plan text as it is stored: redacted, with its PlanKey. Made once
// per CreateRun and bound by both BindPlan and BindRun.
struct StoredPlan {
  std::string text;
  std::string key;
};
inline StoredPlan StoredPlanOf(const RunInfo& run) {
  StoredPlan plan{RedactPlanText(run.plan_text), ""};
  plan.key = PlanKey(plan.text);
  return plan;
}

// The parameters of sql::InsertPlan().
template <class Binder>
void BindPlan(Binder& b, const StoredPlan& plan) {
  b.Bind(1, plan.key);
  b.Bind(2, plan.text);
}

// The parameters of sql::InsertRun(version). From kPlansVersion the text is
// in plans (BindPlan, stored first) and runs.plan_text is left empty.
template <class Binder>
void BindRun(Binder& b, const RunInfo& run, const StoredPlan& plan, int version) {
  b.Bind(1, run.sweep);
  b.Bind(2, run.plan_hash);
  b.Bind(3, version >= kPlansVersion ? std::string() : plan.text);
  b.Bind(4, RedactUrl(run.system));
  b.Bind(5, SourceName(run.source));
  b.Bind(6, run.status.ToString());
  b.Bind(7, run.created_utc);
  b.Bind(8, MapToJson(RedactProvenance(run.config)));
  b.Bind(9, MapToJson(RedactProvenance(run.provenance)));
  if (version >= kVerdictVersion) b.Bind(10, run.search_json);
  if (version >= kPlansVersion) b.Bind(11, plan.key);
}

// A row of sql::SelectPoints into `p` (p.id is set first, for the message).
template <class Row>
Status DecodePoint(Row& s, PointRecord& p) {
  using namespace bounds;
  p.id = s.Int(0);
  p.run_id = s.Int(1);
  p.key = s.Text(2);
  p.workload = s.Text(3);
  FRONTIER_ASSIGN_OR_RETURN(p.load_kind, ParseLoadKind(s.Text(4)));
  p.load_value = s.Real(5);
  FRONTIER_ASSIGN_OR_RETURN(p.repetition, s.Int(6, "repetition", 0, kMaxRepetition));
  FRONTIER_ASSIGN_OR_RETURN(p.source, ParseSource(s.Text(7)));
  FRONTIER_ASSIGN_OR_RETURN(p.attempts, s.Int(8, "attempts", 1, kMaxAttempts));
  p.created_utc = s.Text(9);
  p.settings = RedactProvenance(JsonToMap(s.Text(10)));
  p.summary_json = s.Text(11);
  FRONTIER_ASSIGN_OR_RETURN(p.num_gpus, s.Int(12, "num_gpus", 1, kMaxGpus));
  int col = 13;
  for (int i = 0; i < kNumIntColumns; ++i) {
    const IntColumn& c = kIntColumns[i];
    FRONTIER_ASSIGN_OR_RETURN(p.metrics.*c.member, s.Int(col++, c.name, 0, c.max));
  }
  for (int i = 0; i < kNumDoubleColumns; ++i) kDoubleColumns[i].Set(p.metrics, s.Real(col++));
  p.verdict_json = s.Text(col++);
  p.trial_json = s.Text(col++);
  // band_flags is NULL exactly when the point has no band.
  if (const std::string flags = s.Text(col + 3); !flags.empty()) {
    PredictionBand b;
    b.half_width = s.Real(col);
    FRONTIER_ASSIGN_OR_RETURN(const int64_t points, s.Int(col + 1, "band_points", 0, metrics::kMaxBandPoints));
    b.points = static_cast<int>(points);
    b.basis = s.Text(col + 2);
    FRONTIER_ASSIGN_OR_RETURN(b.flags, BandFlagsFromJson(flags));
    p.band = std::move(b);
  }
  return CheckPoint(p, "");
}

// The parameters of sql::InsertPoint(version).
template <class Binder>
void BindPoint(Binder& b, const PointRecord& p, int version) {
  b.Bind(1, p.run_id);
  b.Bind(2, p.key);
  b.Bind(3, p.workload);
  b.Bind(4, LoadKindName(p.load_kind));
  b.Bind(5, p.load_value);
  b.Bind(6, static_cast<int64_t>(p.repetition));
  b.Bind(7, SourceName(p.source));
  b.Bind(8, static_cast<int64_t>(p.attempts));
  b.Bind(9, p.created_utc.empty() ? UtcTimestampNow() : p.created_utc);
  b.Bind(10, MapToJson(RedactProvenance(p.settings)));
  b.Bind(11, p.summary_json.empty() ? std::string("{}") : p.summary_json);
  b.Bind(12, static_cast<int64_t>(p.num_gpus));
  int param = 13;
  for (int i = 0; i < kNumIntColumns; ++i) b.Bind(param++, p.metrics.*kIntColumns[i].member);
  for (int i = 0; i < kNumDoubleColumns; ++i)
    if (version >= kDoubleColumns[i].since) b.Bind(param++, kDoubleColumns[i].Get(p.metrics));
  if (version >= kVerdictVersion) {
    // A verdict that does not parse was refused by CheckPoint before it got here.
    const Result<VerdictView> v = ParseVerdict(p.verdict_json);
    b.Bind(param++, v.ok() ? v->Label() : std::string());
    b.Bind(param++, p.verdict_json);
    b.Bind(param++, p.trial_json);
  }
  if (version >= kBandVersion) {
    b.Bind(param++, p.band ? p.band->half_width : -1.0);
    b.Bind(param++, p.band ? int64_t{p.band->points} : int64_t{-1});
    b.Bind(param++, p.band ? p.band->basis : std::string());
    b.Bind(param++, p.band ? BandFlagsToJson(p.band->flags) : std::string());
  }
}

// How Store::SkipDamaged names a runs row, a points row, and a requests row of a point,
// that did not decode (its id, index and owner were read first).
inline std::string DamagedRow(const RunInfo& r) { return "runs row " + std::to_string(r.id); }
inline std::string DamagedRow(const PointRecord& p) {
  return "points row " + std::to_string(p.id) + " (run " + std::to_string(p.run_id) + ")";
}
inline std::string DamagedRow(const RequestRow& r, int64_t point_id) {
  return "requests row " + std::to_string(r.idx) + " of point " + std::to_string(point_id);
}
inline std::string DamagedRow(const LaunchRecord& l) { return "launches row " + std::to_string(l.id); }

// Decodes `row` with `decode` (DecodeRun, DecodePoint, DecodeRequest, DecodeLaunch) onto
// the end of `out`. A row that does not decode is left out and handed to
// `skip(what, why)` (Store::SkipDamaged), named DamagedRow(value as far as
// read, name_args...), so that one bad row never hides the rest of a listing.
template <class T, class Row, class Skip, class... NameArgs>
void DecodeOrSkip(Row& row, Status (*decode)(Row&, T&), const Skip& skip, std::vector<T>& out,
                  const NameArgs&... name_args) {
  T value;
  if (const Status st = decode(row, value); !st.ok()) {
    skip(DamagedRow(value, name_args...), st);
    return;
  }
  out.push_back(std::move(value));
}

// RequestRow's columns, listed once for both directions: kRequestColumns(r,
// f) calls f(name, member, max) for each in sql::SelectRequests' order (and
// sql::InsertRequests' after point_id), with `max` the bound a decoded number
// is checked against (from 0, named `name` in the error) or kUnbounded.
inline constexpr int64_t kUnbounded = -1;
constexpr auto kRequestColumns = [](auto& r, auto&& f) {
  constexpr int64_t kTokens = bounds::kMaxRequestTokens;
  f("idx", r.idx, kUnbounded);  // first: DamagedRow names it
  f("ok", r.ok, kUnbounded);
  f("warmup", r.warmup, kUnbounded);
  f("prompt_tokens", r.prompt_tokens, kTokens);
  f("output_tokens", r.output_tokens, kTokens);
  f("scheduled_ns", r.scheduled_ns, kUnbounded);
  f("sent_ns", r.sent_ns, kUnbounded);
  f("first_token_ns", r.first_token_ns, kUnbounded);
  f("end_ns", r.end_ns, kUnbounded);
  f("events", r.events, kTokens);
  f("failure", r.failure, kUnbounded);
  f("http_status", r.http_status, int64_t{999});
};

// A row of sql::SelectRequests into `r`, stopping at the first column out of
// its bounds.
template <class Row>
Status DecodeRequest(Row& s, RequestRow& r) {
  int col = 0;
  Status st;
  kRequestColumns(r, [&](const char* name, auto& v, int64_t max) {
    using T = std::decay_t<decltype(v)>;
    const int c = col++;
    if (!st.ok()) return;
    if constexpr (std::is_same_v<T, std::string>) {
      v = s.Text(c);
    } else if constexpr (std::is_same_v<T, bool>) {
      v = s.Int(c) != 0;
    } else if (max == kUnbounded) {
      v = static_cast<T>(s.Int(c));
    } else if (Result<int64_t> n = s.Int(c, name, 0, max); n.ok()) {
      v = static_cast<T>(*n);
    } else {
      st = n.status();
    }
  });
  return st;
}

// The parameters of one row of sql::InsertRequests, starting at `first`.
template <class Binder>
void BindRequest(Binder& b, int first, int64_t point_id, const RequestRow& q) {
  b.Bind(first, point_id);
  int param = first + 1;
  kRequestColumns(q, [&](const char*, const auto& v, int64_t) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      b.Bind(param++, v);
    } else {
      b.Bind(param++, static_cast<int64_t>(v));
    }
  });
}

// The parameters of sql::InsertPointSeries.
template <class Binder>
void BindPointSeries(Binder& b, int64_t point_id, const PointSeries& s) {
  b.Bind(1, point_id);
  b.Bind(2, s.server_metrics_json);
  b.Bind(3, s.timeslices_json);
}

// A row of sql::SelectPointSeries.
template <class Row>
PointSeries DecodePointSeries(Row& s) {
  PointSeries out;
  out.server_metrics_json = s.Text(0);
  out.timeslices_json = s.Text(1);
  return out;
}

// A row of sql::SelectOpenLaunches (pgid checked: a process group id > 1).
template <class Row>
Status DecodeLaunch(Row& s, LaunchRecord& l) {
  l.id = s.Int(0);
  l.system = s.Text(1);
  l.host = s.Text(2);
  l.boot_id = s.Text(3);
  FRONTIER_ASSIGN_OR_RETURN(l.pgid, s.Int(4, "pgid", 2, std::numeric_limits<int32_t>::max()));
  l.marker = s.Text(5);
  l.command = s.Text(6);
  l.started_utc = s.Text(7);
  return Status::Ok();
}

template <class Binder>
void BindLaunch(Binder& b, const LaunchRecord& l) {
  b.Bind(1, l.system);
  b.Bind(2, l.host);
  b.Bind(3, l.boot_id);
  b.Bind(4, l.pgid);
  b.Bind(5, l.marker);
  b.Bind(6, l.command);
  b.Bind(7, l.started_utc.empty() ? UtcTimestampNow() : l.started_utc);
}

}  // namespace frontier::store::codec
