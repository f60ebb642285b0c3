#include "dashboard/views.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "analysis/cost.h"
#include "analysis/frontier.h"
#include "analysis/iso.h"
#include "core/parse.h"
#include "metrics/result_json.h"
#include "metrics/timeslice.h"
#include "report/over_time.h"
#include "store/records.h"

namespace frontier::dashboard {

using nlohmann::json;
using store::LoadKindName;
using store::SourceName;

namespace {

json Opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json Ci(const analysis::MeanCi& c) {
  return {{"mean", c.mean}, {"half_width", c.half_width}, {"n", c.n}, {"measured", c.measured}};
}

// A point's prediction band (core/prediction_band.h), null for a measured
// point: its relative half width, the calibrated results it rests on, their
// class, its extrapolation flags, the cell `frontier report` shows ("±12%"),
// and with `value` (the figure plotted) the band's bounds around it.
json BandJson(const std::optional<PredictionBand>& band, std::optional<double> value = std::nullopt) {
  if (!band) return nullptr;
  json j = {{"half_width", band->half_width},
            {"points", band->points},
            {"basis", band->basis},
            {"flags", band->flags},
            {"cell", report::BandCell(band)},
            {"describe", band->Describe()}};
  if (value && band->points > 0) {
    j["lo"] = band->Lower(*value);
    j["hi"] = band->Upper(*value);
  }
  return j;
}

}  // namespace

json RunJson(const RunRow& r) {
  return {{"id", r.run.id},
          {"label", r.run.Label()},
          {"sweep", r.run.sweep},
          {"system", r.run.system},
          {"source", SourceName(r.run.source)},
          {"status", r.run.status.ToString()},
          {"created_utc", r.run.created_utc},
          {"model", r.Config("model")},
          {"hardware", r.hardware},
          {"gpus", r.Config("gpus")},
          {"precision", r.Config("precision")},
          {"stack", r.Stack()},
          {"version", r.StackVersion()},
          {"workloads", r.workloads},
          // How far the run has got, then its best single stored point.
          {"points", r.points}, {"planned_points", r.planned_points}, {"last_point_utc", r.last_point_utc},
          {"peak_total_tput_per_gpu", r.peak_total_tput_per_gpu},
          {"peak_output_tput_per_gpu", r.peak_output_tput_per_gpu},
          {"peak_interactivity", r.peak_interactivity}};
}

std::vector<int64_t> DefaultRuns(const DashboardData& data) {
  const auto& runs = data.runs();
  const RunRow* newest = nullptr;
  for (auto it = runs.rbegin(); it != runs.rend() && !newest; ++it)
    if (it->points > 0) newest = &*it;
  std::vector<int64_t> ids;
  if (!newest) return ids;
  for (auto it = runs.rbegin(); it != runs.rend() && ids.size() < 8; ++it) {
    if (it->points > 0 && it->run.sweep == newest->run.sweep && it->run.plan_hash == newest->run.plan_hash)
      ids.push_back(it->run.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

namespace {

// Per workload, the series compared at each interactivity target: throughput, ratio, cost and energy.
json IsoJson(const report::Report& rep) {
  json iso = json::array();
  for (const auto& w : rep.workloads) {
    json names = json::array();
    for (size_t idx : w.series) names.push_back(rep.series[idx].name);
    json rows = json::array();
    for (size_t t = 0; t < w.targets.size(); ++t) {
      json cells = json::array();
      for (size_t k = 0; k < w.series.size(); ++k) {
        const auto& s = rep.series[w.series[k]];
        cells.push_back({{"series", s.name},
                         {"run_id", s.run.id},
                         {"total", Opt(w.iso_total[t].tput[k])},
                         {"output", Opt(w.iso_output[t].tput[k])},
                         {"ratio_total", Opt(w.iso_total[t].ratio[k])},
                         {"ratio_output", Opt(w.iso_output[t].ratio[k])},
                         {"usd_per_m_total", Opt(w.cost[t].usd_per_m_total[k])},
                         {"usd_per_m_output", Opt(w.cost[t].usd_per_m_output[k])},
                         {"tokens_per_joule", Opt(w.cost[t].tokens_per_joule[k])}});
      }
      rows.push_back({{"interactivity", w.targets[t]}, {"cells", cells}});
    }
    iso.push_back({{"workload", w.workload}, {"series", names}, {"rows", rows}});
  }
  return iso;
}

// A point's measured energy, as a frontier point and the energy table show it.
json EnergyJson(const report::EnergyRow& e) {
  return {{"label", e.label},
          {"joules", e.joules},
          {"mean_power_w", e.mean_w},
          {"peak_power_w", e.peak_w},
          {"tokens_per_joule", e.tokens_per_joule},
          {"tdp_bound_tokens_per_joule", Opt(e.tdp_bound_tokens_per_joule)}};
}

// The points whose energy was measured, one row each.
json MeasuredEnergyJson(const report::Report& rep) {
  json energy = json::array();
  for (const auto& e : report::MeasuredEnergyRows(rep)) {
    json row = EnergyJson(e);
    row["series"] = e.series;
    row["key"] = e.key;
    energy.push_back(std::move(row));
  }
  return energy;
}

}  // namespace

json FrontierJson(const report::Report& rep, const std::string& y, const std::string& x,
                  DashboardData& data) {
  (void)data;
  json series = json::array();
  json notes = json::array();
  for (const auto& s : rep.series) {
    const double price = s.facts ? s.facts->price_per_gpu_hour : 0;
    const double tdp = s.facts ? s.facts->tdp_w : 0;
    if (y == "per_dollar" && !(price > 0)) {
      notes.push_back(s.name + ": no price for hardware '" + s.hardware +
                      "' (the catalog has none; start the dashboard with --price HW=USD)");
    }
    json pts = json::array();
    // Whether some point measured no energy and so needs the TDP; each point's
    // energy is looked up once (MeasuredEnergyOf walks its repetitions).
    bool needs_tdp = false;
    for (const auto& p : s.points) {
      const analysis::MeanCi& xm = x == "ttft_p50" ? p.median_ttft_ms
                                   : x == "ttft_p99" ? p.p99_ttft_ms
                                   : x == "e2el"     ? p.median_e2el_ms
                                                     : p.interactivity;
      const analysis::MeanCi& base = y == "output" ? p.output_tput_per_gpu : p.total_tput_per_gpu;
      std::optional<double> yv = base.mean;
      if (y == "per_dollar") yv = analysis::TokensPerDollar(price, base.mean);
      // Tokens per joule: measured where some repetition of the point measured its
      // energy (docs/energy.md), else the TDP bound; y_kind says which.
      const std::optional<report::EnergyRow> energy = report::MeasuredEnergyOf(s, p);
      needs_tdp = needs_tdp || !energy;
      std::string y_kind = y == "per_joule" ? "tdp_bound" : "";
      if (y == "per_joule") yv = analysis::TokensPerJoule(base.mean, tdp);
      if (y == "per_joule" && energy) {
        yv = energy->tokens_per_joule;
        y_kind = "measured";
      }
      // The interval scales with the throughput: both conversions are linear in it.
      // A measured energy carries no interval of its own here (the repetitions' mean).
      const double scale = y_kind == "measured" ? 0 : yv && base.mean > 0 ? *yv / base.mean : 0;
      const json energy_json = energy ? EnergyJson(*energy) : json(nullptr);
      json ids = json::array();
      for (const auto& r : p.repetitions) ids.push_back(r.id);
      pts.push_back({{"key", p.key},
                     {"load", p.load},
                     {"load_kind", LoadKindName(p.load_kind)},
                     {"x", xm.mean},
                     {"x_err", xm.half_width},
                     {"y", Opt(yv)},
                     {"y_err", base.half_width * scale},
                     {"y_kind", y_kind},
                     {"energy", energy_json},
                     {"n", p.repetitions.size()},
                     {"frontier", y == "output" ? p.on_output_frontier : p.on_total_frontier},
                     {"ids", ids},
                     {"interactivity", Ci(p.interactivity)},
                     {"total_tput_per_gpu", Ci(p.total_tput_per_gpu)},
                     {"output_tput_per_gpu", Ci(p.output_tput_per_gpu)},
                     {"median_ttft_ms", Ci(p.median_ttft_ms)},
                     {"p99_ttft_ms", Ci(p.p99_ttft_ms)},
                     {"median_tpot_ms", Ci(p.median_tpot_ms)},
                     {"median_e2el_ms", Ci(p.median_e2el_ms)},
                     {"settings", p.settings},
                     // "VALID", "INVALID: <first reason>", "" when not judged (report/model.h).
                     {"verdict", report::VerdictCell(p.verdict)},
                     {"trial", p.trial.is_trial ? json(p.trial.index) : json(nullptr)},
                     {"decision", p.trial.decision},
                     // How sure a simulated point is, its bounds on the plotted y (every y is
                     // linear in the throughput); null for a measured point.
                     {"band", BandJson(p.band, yv)}});
    }
    // Only a point that measured no energy needs the TDP.
    if (y == "per_joule" && !(tdp > 0) && needs_tdp) {
      notes.push_back(s.name + ": no TDP for hardware '" + s.hardware + "' in the catalog");
    }
    series.push_back({{"name", s.name},
                      {"run_id", s.run.id},
                      {"label", s.run.Label()},
                      {"workload", s.workload},
                      {"hardware", s.hardware},
                      {"gpus", s.run.config.count("gpus") ? s.run.config.at("gpus") : ""},
                      {"source", SourceName(s.run.source)},
                      {"status", s.run.status.ToString()},
                      {"price_per_gpu_hour", price},
                      {"price_source", s.facts ? s.facts->price_source : ""},
                      {"tdp_w", tdp},
                      {"search", s.search},
                      // The widest band of a point on the frontier, drawn around it (0: none).
                      {"frontier_band", y == "output" ? s.frontier_band_output : s.frontier_band_total},
                      {"band_flags", s.band_flags},
                      {"points", pts}});
  }
  json iso = IsoJson(rep);
  json energy = MeasuredEnergyJson(rep);
  return {{"series", series}, {"iso", iso}, {"energy", energy}, {"notes", notes}, {"x", x}, {"y", y}};
}

json Histogram(const std::vector<double>& values, int bins) {
  json edges = json::array(), counts = json::array();
  if (values.empty() || bins < 1) return {{"edges", edges}, {"counts", counts}};
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  const double width = hi > lo ? (hi - lo) / bins : 1.0;
  std::vector<int64_t> c(static_cast<size_t>(bins), 0);
  for (double v : values) {
    int b = static_cast<int>((v - lo) / width);
    b = std::clamp(b, 0, bins - 1);  // the maximum falls in the last bin
    ++c[static_cast<size_t>(b)];
  }
  for (int i = 0; i <= bins; ++i) edges.push_back(lo + width * i);
  for (auto n : c) counts.push_back(n);
  return {{"edges", edges}, {"counts", counts}};
}

namespace {

// The latency statistics of a stored summary, per metric, as metrics reads them.
json Percentiles(const json& summary) {
  json out = json::object();
  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    const auto stats = metrics::LatencyStats(summary, metric);
    if (stats.empty()) continue;
    json list = json::array();
    for (const auto& [stat, value] : stats) list.push_back({{"stat", stat}, {"value", value}});
    out[metric] = list;
  }
  return out;
}

// A stored JSON text as JSON; null when empty (or unreadable).
json ParsedOrNull(const std::string& text) {
  if (text.empty()) return nullptr;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(nullptr) : j;
}

// Whether request rows were sent at two instants or more: a vLLM result's
// per-request arrays are all stored as sent at 0 and have no timeline.
bool HasTimeline(const std::vector<store::RequestRow>& rows) {
  const store::RequestRow* first = nullptr;
  for (const auto& r : rows) {
    if (r.warmup) continue;
    if (first && r.sent_ns != first->sent_ns) return true;
    if (!first) first = &r;
  }
  return false;
}

json Curves(const std::vector<report::Curve>& curves) {
  json out = json::array();
  for (const auto& c : curves) {
    json t = json::array(), v = json::array();
    for (const auto& [x, y] : c.points) {
      t.push_back(x);
      v.push_back(y);
    }
    out.push_back({{"name", c.name}, {"t_s", t}, {"values", v}});
  }
  return out;
}

// The point's windows and server samples. The windows are the ones stored
// with the point (metrics::TimeslicesToJson, cut when it ran); for a point
// stored without them, metrics::ComputeTimeslices over its request rows, the
// same rule, with each request's tokens at its end (token times are not
// stored). The server samples as `frontier report` reads them.
json SeriesJson(const DashboardData::PointDetail& d) {
  json out = {{"timeslices", nullptr}, {"timeslices_from", nullptr}};
  const json stored = ParsedOrNull(d.series.timeslices_json);
  if (stored.is_object() && stored.contains("windows") && stored["windows"].is_object()) {
    out["timeslices"] = stored;
    out["timeslices_from"] = "stored";
  } else if (HasTimeline(d.requests)) {
    const metrics::Timeslices t = metrics::ComputeTimeslices(store::RunFromRows(d.requests), {});
    if (!t.slices.empty()) {
      out["timeslices"] = metrics::TimeslicesToJson(t);
      out["timeslices_from"] = "request rows";
    }
  }
  store::PointSeries server;
  server.server_metrics_json = d.series.server_metrics_json;
  const report::PointOverTime o = report::ParseOverTime(server);
  out["server"] = {{"kv_usage_pct", Curves(o.kv_usage)}, {"queue", Curves(o.queue)},
                   {"prefix_hit_rate_pct", Curves(o.hit_rate)}};
  return out;
}

json Reproduce(const store::RunInfo& run, const store::PointRecord& p) {
  auto prov = [&](const char* k) { return run.provenance.count(k) ? run.provenance.at(k) : std::string(); };
  json out = {{"original_command", prov("command_line")}, {"plan_text", run.plan_text}};
  if (!prov("file").empty()) {
    std::string cmd = "frontier db import " + prov("file") + " --db reproduce.db";
    if (prov("format") == "vllm bench serve") {
      if (run.config.count("gpus")) cmd += " --gpus " + run.config.at("gpus");
      if (run.config.count("hardware")) cmd += " --hardware " + run.config.at("hardware");
    }
    out["command"] = cmd;
    out["note"] = "an imported result: this re-imports the file it came from";
  } else if (!prov("plan_file").empty()) {
    out["command"] = "frontier sweep " + prov("plan_file") + " --db reproduce.db";
    out["note"] = "runs the plan stored with this run (text below; its hash is " + run.plan_hash +
                  "), which measures point '" + p.key + "' of system '" + run.system +
                  "' with seed " + (p.settings.count("seed") ? p.settings.at("seed") : "?") +
                  " among the others";
  } else {
    out["command"] = prov("command_line");
    out["note"] = "the command stored with the run";
  }
  return out;
}

}  // namespace

json PointJson(const DashboardData::PointDetail& d) {
  const store::PointRecord& p = d.point;
  const metrics::Summary& m = p.metrics;
  json summary = json::parse(p.summary_json.empty() ? "{}" : p.summary_json, nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) summary = json::object();
  std::vector<double> ttft, tpot, itl, e2el;
  int64_t ok = 0, failed = 0, warmup = 0;
  for (const auto& r : d.requests) {
    if (r.warmup) { ++warmup; continue; }
    if (!r.ok) { ++failed; continue; }
    ++ok;
    if (r.first_token_ns >= 0) ttft.push_back(static_cast<double>(r.first_token_ns - r.sent_ns) / 1e6);
    if (r.first_token_ns >= 0 && r.end_ns >= r.first_token_ns) {
      const double decode_ms = static_cast<double>(r.end_ns - r.first_token_ns) / 1e6;
      if (r.output_tokens > 1) tpot.push_back(decode_ms / (r.output_tokens - 1));
      if (r.events > 1) itl.push_back(decode_ms / (r.events - 1));
    }
    if (r.end_ns >= r.sent_ns) e2el.push_back(static_cast<double>(r.end_ns - r.sent_ns) / 1e6);
  }
  json run = {{"id", d.run.id},       {"label", d.run.Label()},       {"sweep", d.run.sweep},
              {"system", d.run.system}, {"source", SourceName(d.run.source)}, {"status", d.run.status.ToString()},
              {"created_utc", d.run.created_utc}, {"config", d.run.config},
              {"provenance", d.run.provenance}, {"plan_hash", d.run.plan_hash},
              {"search", ParsedOrNull(d.run.search_json)}};
  json metrics = {{"num_gpus", p.num_gpus}, {"completed", m.completed}, {"failed", m.failed},
                  {"total_input_tokens", m.total_input_tokens}, {"total_output_tokens", m.total_output_tokens},
                  {"duration_s", m.duration_s}, {"request_throughput", m.request_throughput},
                  {"output_throughput", m.output_throughput}, {"total_token_throughput", m.total_token_throughput},
                  {"output_tput_per_gpu", m.output_throughput_per_gpu},
                  {"total_tput_per_gpu", m.total_token_throughput_per_gpu}, {"interactivity", m.interactivity},
                  // A REAL column, shown as it always was.
                  {"max_concurrent_requests", static_cast<double>(m.max_concurrent_requests)}};
  constexpr int kBins = 20;
  return {{"point", {{"id", p.id}, {"key", p.key}, {"workload", p.workload},
                     {"load_kind", LoadKindName(p.load_kind)}, {"load", p.load_value},
                     {"repetition", p.repetition}, {"source", SourceName(p.source)},
                     {"attempts", p.attempts}, {"created_utc", p.created_utc}, {"settings", p.settings},
                     {"metrics", metrics},
                     {"verdict", ParsedOrNull(p.verdict_json)},
                     {"trial", ParsedOrNull(p.trial_json)},
                     {"band", BandJson(p.band, p.metrics.total_token_throughput_per_gpu)}}},
          {"run", run},
          {"percentiles", Percentiles(summary)},
          {"summary", summary},
          {"requests", {{"stored", d.requests.size()}, {"ok", ok}, {"failed", failed}, {"warmup", warmup}}},
          {"histograms", {{"ttft_ms", Histogram(ttft, kBins)}, {"tpot_ms", Histogram(tpot, kBins)},
                          {"itl_ms", Histogram(itl, kBins)}, {"e2el_ms", Histogram(e2el, kBins)}}},
          {"series", SeriesJson(d)},
          {"reproduce", Reproduce(d.run, p)}};
}

json RunViewJson(const RunRow& row, const std::vector<store::PointRecord>& points) {
  struct Entry {
    const store::PointRecord* p;
    json trial;
  };
  std::vector<Entry> entries;
  for (const auto& p : points) entries.push_back({&p, ParsedOrNull(p.trial_json)});
  auto trial_index = [](const Entry& e) -> std::optional<int64_t> {
    if (!e.trial.is_object() || !e.trial.contains("index") || !e.trial["index"].is_number_integer()) return std::nullopt;
    return e.trial["index"].get<int64_t>();
  };
  // Trials by index, then the rest by id (stable: points come by id).
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    const auto ia = trial_index(a), ib = trial_index(b);
    if (ia && ib) return *ia < *ib;
    return ia.has_value() && !ib.has_value();
  });
  json list = json::array();
  int64_t judged = 0, invalid = 0, trials = 0;
  for (const auto& e : entries) {
    const store::PointRecord& p = *e.p;
    const metrics::Summary& m = p.metrics;
    auto view = store::ParseVerdict(p.verdict_json);
    const std::string cell = view.ok() ? report::VerdictCell(*view) : "unreadable verdict";
    if (view.ok() && view->judged) {
      ++judged;
      if (!view->valid) ++invalid;
    }
    if (trial_index(e)) ++trials;
    list.push_back({{"id", p.id}, {"key", p.key}, {"workload", p.workload},
                    {"load_kind", LoadKindName(p.load_kind)}, {"load", p.load_value},
                    {"repetition", p.repetition}, {"source", SourceName(p.source)},
                    {"created_utc", p.created_utc}, {"completed", m.completed}, {"failed", m.failed},
                    {"interactivity", m.interactivity}, {"total_tput_per_gpu", m.total_token_throughput_per_gpu},
                    {"output_tput_per_gpu", m.output_throughput_per_gpu}, {"median_ttft_ms", m.ttft_ms.median},
                    {"p99_ttft_ms", store::P99(m.ttft_ms)}, {"median_tpot_ms", m.tpot_ms.median},
                    {"verdict_cell", cell}, {"verdict", ParsedOrNull(p.verdict_json)}, {"trial", e.trial},
                    {"band", BandJson(p.band, m.total_token_throughput_per_gpu)}});
  }
  json run = RunJson(row);
  run["config"] = row.run.config;
  run["provenance"] = row.run.provenance;
  return {{"run", run},
          {"search", ParsedOrNull(row.run.search_json)},
          {"search_line", report::SearchLine(row.run.search_json)},
          {"judged", judged},
          {"invalid", invalid},
          {"trials", trials},
          {"points", list}};
}

json CompareJson(const analysis::RegressionReport& r, const RunRow& baseline, const RunRow& candidate,
                 const analysis::RegressionOptions& o, const report::ComparedBands& bands) {
  json deltas = json::array();
  for (int pass = 0; pass < 2; ++pass) {  // regressions first, as `frontier compare` prints them
    for (const auto& d : r.deltas) {
      if ((pass == 0) != d.regression) continue;
      deltas.push_back({{"key", d.key}, {"metric", d.metric}, {"baseline", d.baseline},
                        {"candidate", d.candidate}, {"relative_change", d.relative_change},
                        {"threshold", d.threshold}, {"noise_measured", d.noise_measured},
                        {"n_baseline", d.n_baseline}, {"n_candidate", d.n_candidate},
                        {"verdict", d.regression ? "regression" : d.improvement ? "improved" : "same"},
                        {"band", report::BandVerdict(bands, d.metric, d.relative_change)}});
    }
  }
  json jb = RunJson(baseline), jc = RunJson(candidate);
  jb["band"] = BandJson(bands.baseline);
  jc["band"] = BandJson(bands.candidate);
  const std::string verdict = r.deltas.empty()      ? "no common points"
                              : r.regressions > 0   ? "regression"
                              : r.improvements > 0  ? "improved"
                                                    : "no change beyond noise";
  const std::string level = FormatSignificant(o.level);
  return {{"baseline", jb}, {"candidate", jc}, {"deltas", deltas},
          {"only_baseline", r.only_baseline}, {"only_candidate", r.only_candidate},
          {"regressions", r.regressions}, {"improvements", r.improvements}, {"verdict", verdict},
          {"options", {{"confidence", o.level}, {"min_change", o.min_relative}, {"threshold", o.unmeasured_threshold}}},
          {"command", "frontier compare --baseline " + std::to_string(baseline.run.id) + " --candidate " +
                          std::to_string(candidate.run.id) + " --confidence " + level}};
}

Result<json> OverTimeJson(DashboardData& data, const std::string& config, const std::string& workload,
                          std::optional<double> at) {
  std::map<std::string, std::vector<const RunRow*>> by_config;
  std::vector<std::string> order;
  for (const RunRow& r : data.runs()) {
    if (r.points == 0) continue;
    const std::string name = r.run.sweep + "/" + r.run.system;
    if (!by_config.count(name)) order.push_back(name);
    by_config[name].push_back(&r);
  }
  json configs = json::array();
  std::string chosen = config;
  for (const auto& name : order) {
    configs.push_back({{"config", name}, {"runs", by_config[name].size()}});
    if (config.empty() && (chosen.empty() || by_config[name].size() > by_config[chosen].size())) chosen = name;
  }
  json out = {{"configs", configs}, {"config", chosen}, {"rows", json::array()}};
  if (chosen.empty()) return out;
  auto it = by_config.find(chosen);
  if (it == by_config.end()) {
    return NotFound("configuration '" + chosen +
                    "' has no run with points; give config=SWEEP/SYSTEM as the list shows");
  }
  std::vector<int64_t> ids;
  // The latest runs of the configuration, at most what a plot can show.
  const auto& runs = it->second;
  for (size_t i = runs.size() > 200 ? runs.size() - 200 : 0; i < runs.size(); ++i) ids.push_back(runs[i]->run.id);
  FRONTIER_ASSIGN_OR_RETURN(report::Report rep, data.BuildReport(ids, {}));
  std::vector<std::string> workloads;
  for (const auto& s : rep.series)
    if (std::find(workloads.begin(), workloads.end(), s.workload) == workloads.end()) workloads.push_back(s.workload);
  const std::string w = workload.empty() && !workloads.empty() ? workloads.front() : workload;
  if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) {
    return NotFound("workload '" + w + "' is not in configuration '" + chosen + "'");
  }
  std::vector<analysis::Series> series;
  for (const auto& s : rep.series)
    if (s.workload == w) series.push_back({s.name, report::OperatingPoints(s)});
  if (!at) {
    const auto targets = analysis::DefaultTargets(series, analysis::Throughput::kTotal);
    if (!targets.empty()) at = targets[targets.size() / 2];
  }
  json rows = json::array();
  for (const auto& s : rep.series) {
    if (s.workload != w) continue;
    double peak_total = 0, peak_output = 0, top_x = 0;
    for (const auto& p : s.points) {
      peak_total = std::max(peak_total, p.total_tput_per_gpu.mean);
      peak_output = std::max(peak_output, p.output_tput_per_gpu.mean);
      top_x = std::max(top_x, p.interactivity.mean);
    }
    std::optional<double> at_value;
    if (at) {
      const auto ops = report::OperatingPoints(s);
      at_value = analysis::Interpolate(analysis::FrontierCurve(ops, analysis::Throughput::kTotal), *at);
    }
    rows.push_back({{"run_id", s.run.id}, {"label", s.run.Label()}, {"created_utc", s.run.created_utc},
                    {"status", s.run.status.ToString()}, {"peak_total_tput_per_gpu", peak_total},
                    {"peak_output_tput_per_gpu", peak_output}, {"max_interactivity", top_x},
                    {"total_tput_per_gpu_at", Opt(at_value)}});
  }
  out["workloads"] = workloads;
  out["workload"] = w;
  out["at"] = Opt(at);
  out["rows"] = rows;
  return out;
}

Result<json> LiveJson(DashboardData& data, int64_t since) {
  json points = json::array();
  constexpr size_t kMax = 500;
  for (const auto& p : data.PointsAfter(since, kMax)) {
    const RunRow* r = data.FindRun(p.run_id);
    points.push_back({{"id", p.id}, {"run_id", p.run_id}, {"label", r ? r->run.Label() : ""},
                      {"key", p.key}, {"workload", p.workload}, {"load", p.load_value},
                      {"repetition", p.repetition}, {"source", SourceName(p.source)},
                      {"created_utc", p.created_utc},
                      {"interactivity", p.interactivity}, {"total_tput_per_gpu", p.total_tput_per_gpu},
                      {"output_tput_per_gpu", p.output_tput_per_gpu}, {"median_ttft_ms", p.median_ttft_ms}});
  }
  json progress = json::array();
  const auto& runs = data.runs();
  if (!runs.empty()) {
    const RunRow& newest = runs.back();
    for (const RunRow& r : runs) {
      if (r.run.sweep != newest.run.sweep || r.run.plan_hash != newest.run.plan_hash) continue;
      progress.push_back({{"id", r.run.id}, {"label", r.run.Label()}, {"status", r.run.status.ToString()},
                          {"points", r.points}, {"planned_points", r.planned_points},
                          {"last_point_utc", r.last_point_utc}});
    }
  }
  const int64_t last = points.empty() ? std::max(since, int64_t{0}) : points.back()["id"].get<int64_t>();
  return json{{"points", points}, {"progress", progress}, {"last_id", last},
              {"more", points.size() == kMax}};
}

}  // namespace frontier::dashboard
