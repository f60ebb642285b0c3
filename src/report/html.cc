#include "report/html.h"

#include <sstream>

#include "core/parse.h"
#include "report/svg.h"
#include "report/table.h"

namespace frontier::report {
namespace {

const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px} .muted{color:#666;font-size:13px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{background:#fff;border:1px solid #e3e3e3;border-radius:4px}
svg .plot{fill:#fcfcfc;stroke:#bbb} svg .grid{stroke:#eee} svg .tick{font-size:11px;fill:#555}
svg .axis{font-size:12px;fill:#333} svg .ctitle{font-size:13px;font-weight:600;fill:#222}
svg .legend{font-size:11px;fill:#333} svg .err{stroke-width:1.2;fill:none;opacity:.8}
svg circle{cursor:pointer;stroke-width:1.5} svg circle.rep{opacity:.35} svg rect.band{fill:#2ca02c;opacity:.12}
svg .pband{opacity:.15;stroke:none} p.flags{color:#8a5a00;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:6px 0 14px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right} th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left} td.l{text-align:left}
#tip{position:fixed;display:none;background:#222;color:#fff;padding:6px 8px;border-radius:4px;
font-size:12px;white-space:pre;pointer-events:none;z-index:10;max-width:520px}
)css";

const char* kScript = R"js(
(function(){var tip=document.getElementById('tip');
document.addEventListener('mouseover',function(e){var t=e.target.getAttribute&&e.target.getAttribute('data-tip');
if(!t){tip.style.display='none';return;}tip.textContent=t;tip.style.display='block';});
document.addEventListener('mousemove',function(e){tip.style.left=(e.clientX+14)+'px';tip.style.top=(e.clientY+10)+'px';});
})();
)js";

std::string Td(const std::string& s, bool left = false) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + HtmlEscape(s) + "</td>";
}

std::string Settings(const std::map<std::string, std::string>& m) {
  std::string s;
  for (auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

std::string PointTip(const SeriesReport& s, const AggregatedPoint& p) {
  std::ostringstream t;
  t << s.name << "\n" << store::LoadKindName(p.load_kind) << " "
    << Fixed(p.load, p.load == static_cast<int64_t>(p.load) ? 0 : 2)
    << "  (" << p.repetitions.size() << " repetition" << (p.repetitions.size() == 1 ? "" : "s") << ")\n"
    << "interactivity " << WithCi(p.interactivity.mean, p.interactivity.half_width, p.interactivity.measured, 1)
    << " tok/s/user\n"
    << "total " << WithCi(p.total_tput_per_gpu.mean, p.total_tput_per_gpu.half_width, p.total_tput_per_gpu.measured, 1)
    << " tok/s/GPU\n"
    << "output " << WithCi(p.output_tput_per_gpu.mean, p.output_tput_per_gpu.half_width, p.output_tput_per_gpu.measured, 1)
    << " tok/s/GPU\n"
    << "TTFT p50 " << Fixed(p.median_ttft_ms.mean, 1) << " ms, p99 " << Fixed(p.p99_ttft_ms.mean, 1)
    << " ms\nTPOT p50 " << Fixed(p.median_tpot_ms.mean, 2) << " ms, E2EL p50 " << Fixed(p.median_e2el_ms.mean, 0)
    << " ms\nconfig: " << Settings(s.run.config);
  return t.str();
}

std::string RepTip(const SeriesReport& s, const store::PointRecord& r) {
  std::ostringstream t;
  t << s.name << " point " << r.id << " (" << store::SourceName(r.source) << ")\n" << r.key << "\n"
    << "interactivity " << Fixed(r.metrics.interactivity, 1) << " tok/s/user\n"
    << "total " << Fixed(r.metrics.total_token_throughput_per_gpu, 1) << ", output "
    << Fixed(r.metrics.output_throughput_per_gpu, 1) << " tok/s/GPU\nTTFT p50 "
    << Fixed(r.metrics.ttft_ms.median, 1) << " ms, TPOT p50 " << Fixed(r.metrics.tpot_ms.median, 2) << " ms";
  return t.str();
}

void ParetoChart(std::ostream& out, const Report& r, const WorkloadReport& w, bool output) {
  std::vector<ChartSeries> cs;
  for (size_t k = 0; k < w.series.size(); ++k) {
    const SeriesReport& s = r.series[w.series[k]];
    ChartSeries c;
    c.name = s.name;
    c.color = PaletteColor(w.series[k]);  // the frontier: PCHIP through the frontier points
    for (const auto& p : s.points) {
      const auto& y = output ? p.output_tput_per_gpu : p.total_tput_per_gpu;
      const bool front = output ? p.on_output_frontier : p.on_total_frontier;
      for (const auto& rep : p.repetitions) {
        if (p.repetitions.size() < 2) break;  // the mean marker is the point itself
        Marker m;
        m.x = rep.metrics.interactivity;
        m.y = output ? rep.metrics.output_throughput_per_gpu : rep.metrics.total_token_throughput_per_gpu;
        m.radius = 2;
        m.css_class = "rep";
        m.id = output ? "" : "pt-" + std::to_string(rep.id);
        m.tip = RepTip(s, rep);
        c.markers.push_back(m);
      }
      Marker m;
      m.x = p.interactivity.mean;
      m.y = y.mean;
      m.x_err = p.interactivity.half_width;
      m.y_err = y.half_width;
      m.radius = front ? 4.5 : 3.5;
      m.hollow = !front;
      if (!output && p.repetitions.size() == 1) m.id = "pt-" + std::to_string(p.repetitions[0].id);
      m.tip = PointTip(s, p) + (front ? "\non the frontier" : "\ndominated");
      if (p.band && p.band->points > 0) {
        m.y_band_lo = p.band->Lower(y.mean);
        m.y_band_hi = p.band->Upper(y.mean);
      }
      if (p.band) m.tip += "\n" + BandTip(p.band, y.mean);
      c.markers.push_back(m);
    }
    const auto ops = OperatingPoints(s);
    const auto curve = analysis::FrontierCurve(ops, output ? analysis::Throughput::kOutput
                                                           : analysis::Throughput::kTotal);
    // Drawn by the same interpolation the iso-interactivity tables read.
    if (curve.x.size() == 1) c.line.emplace_back(curve.x[0], curve.y[0]);
    for (size_t i = 0; i + 1 < curve.x.size(); ++i) {
      for (int step = 0; step < 16; ++step) {
        const double x = curve.x[i] + (curve.x[i + 1] - curve.x[i]) * step / 16.0;
        c.line.emplace_back(x, analysis::Interpolate(curve, x).value_or(curve.y[i]));
      }
    }
    if (curve.x.size() > 1) c.line.emplace_back(curve.x.back(), curve.y.back());
    // A simulated frontier is drawn with its band: the curve at +/- the widest
    // band of its points.
    if (const double h = output ? s.frontier_band_output : s.frontier_band_total; h > 0) {
      const PredictionBand band{h, 1, "", {}};
      for (const auto& [x, y] : c.line) c.area.push_back({x, band.Lower(y), band.Upper(y)});
    }
    cs.push_back(std::move(c));
  }
  ChartOptions o;
  o.title = std::string(output ? "Output" : "Total") + " tokens/s per GPU vs interactivity — " + w.workload;
  o.x_label = "interactivity (tokens/s per user = 1000 / median TPOT ms)";
  o.y_label = std::string(output ? "output" : "total (input + output)") + " tokens/s/GPU";
  o.width = 660;
  o.height = 430;
  out << RenderChart(cs, o);
}

void LatencyChart(std::ostream& out, const Report& r, const WorkloadReport& w, bool tpot) {
  std::vector<ChartSeries> cs;
  std::string kind = "load";
  for (size_t idx : w.series) {
    const SeriesReport& s = r.series[idx];
    ChartSeries c;
    c.name = s.name;
    c.color = PaletteColor(idx);
    for (const auto& p : s.points) {
      kind = store::LoadKindName(p.load_kind);
      const auto& v = tpot ? p.median_tpot_ms : p.median_ttft_ms;
      Marker m;
      m.x = p.load;
      m.y = v.mean;
      m.y_err = v.half_width;
      m.tip = PointTip(s, p);
      c.markers.push_back(m);
      c.line.emplace_back(p.load, v.mean);
    }
    cs.push_back(std::move(c));
  }
  ChartOptions o;
  o.title = std::string(tpot ? "Median TPOT" : "Median TTFT") + " vs " + kind + " — " + w.workload;
  o.x_label = kind + " (log2 scale)";
  o.y_label = std::string(tpot ? "median TPOT" : "median TTFT") + " (ms)";
  o.x_log2 = true;
  o.width = 660;
  o.height = 330;
  out << RenderChart(cs, o);
}

void IsoTable(std::ostream& out, const Report& r, const WorkloadReport& w, bool output) {
  const auto& rows = output ? w.iso_output : w.iso_total;
  out << "<table><tr><th>tok/s/user</th>";
  for (size_t idx : w.series) out << "<th>" << HtmlEscape(r.series[idx].name) << "</th>";
  for (size_t k = 1; k < w.series.size(); ++k)
    out << "<th>" << HtmlEscape(r.series[w.series[k]].name + " / " + r.series[w.series[0]].name) << "</th>";
  out << "</tr>\n";
  for (const auto& row : rows) {
    out << "<tr>" << Td(Fixed(row.interactivity, 0));
    for (const auto& v : row.tput) out << Td(Fixed(v, 1));
    for (size_t k = 1; k < row.ratio.size(); ++k) out << Td(row.ratio[k] ? Fixed(row.ratio[k], 2) + "x" : "-");
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void CostTable(std::ostream& out, const Report& r, const WorkloadReport& w) {
  out << "<table><tr><th rowspan=\"2\">tok/s/user</th>";
  for (size_t idx : w.series) out << "<th colspan=\"3\">" << HtmlEscape(r.series[idx].name) << "</th>";
  out << "</tr><tr>";
  for (size_t k = 0; k < w.series.size(); ++k) out << "<th>$/M output</th><th>$/M total</th><th>tokens/J</th>";
  out << "</tr>\n";
  for (const auto& row : w.cost) {
    out << "<tr>" << Td(Fixed(row.interactivity, 0));
    for (size_t k = 0; k < row.usd_per_m_total.size(); ++k)
      out << Td(Fixed(row.usd_per_m_output[k], 3)) << Td(Fixed(row.usd_per_m_total[k], 3))
          << Td(Fixed(row.tokens_per_joule[k], 2));
    out << "</tr>\n";
  }
  out << "</table>\n<table><tr><th>system</th><th>hardware</th><th>$/GPU-hour</th><th>price source</th>"
         "<th>TDP (W/GPU)</th></tr>\n";
  for (size_t idx : w.series) {
    const auto& s = r.series[idx];
    out << "<tr>" << Td(s.name) << Td(s.hardware.empty() ? "-" : s.hardware)
        << Td(s.facts && s.facts->price_per_gpu_hour > 0 ? Fixed(s.facts->price_per_gpu_hour, 2) : "-")
        << Td(s.facts ? s.facts->price_source : "unknown (give --price HW=USD)", true)
        << Td(s.facts && s.facts->tdp_w > 0 ? Fixed(s.facts->tdp_w, 0) : "-") << "</tr>\n";
  }
  out << "</table>\n";
}

void SeriesTable(std::ostream& out, const SeriesReport& s) {
  out << "<h3>" << HtmlEscape(s.name) << " <span class=\"muted\">" << HtmlEscape(s.run.Label()) << ", "
      << HtmlEscape(store::SourceName(s.run.source))
      << (!s.run.status.ok() ? ", " + HtmlEscape(s.run.status.ToString()) : "")
      << "</span></h3>\n";
  if (!s.search.empty()) out << "<p>" << HtmlEscape(s.search) << "</p>\n";
  if (!s.band_flags.empty()) {
    std::string flags;
    for (const auto& f : s.band_flags) flags += (flags.empty() ? "" : "; ") + f;
    out << "<p class=\"flags\">extrapolates: " << HtmlEscape(flags) << "</p>\n";
  }
  out << "<table><tr><th>" << HtmlEscape(s.points.empty() ? "load" : store::LoadKindName(s.points[0].load_kind))
      << "</th><th>reps</th><th>tok/s/user</th><th>total tok/s/GPU</th><th>output tok/s/GPU</th>"
         "<th>TTFT p50 ms</th><th>TTFT p99 ms</th><th>TPOT p50 ms</th><th>frontier</th>"
      << (s.banded ? "<th>band</th>" : "") << (s.judged ? "<th>verdict</th>" : "")
      << (s.trials ? "<th>trial</th><th>decision</th>" : "") << "</tr>\n";
  for (const auto& p : s.points) {
    out << "<tr>" << Td(p.key.substr(p.key.find('|') + 1)) << Td(std::to_string(p.repetitions.size()))
        << Td(WithCi(p.interactivity.mean, p.interactivity.half_width, p.interactivity.measured, 1))
        << Td(WithCi(p.total_tput_per_gpu.mean, p.total_tput_per_gpu.half_width, p.total_tput_per_gpu.measured, 1))
        << Td(WithCi(p.output_tput_per_gpu.mean, p.output_tput_per_gpu.half_width, p.output_tput_per_gpu.measured, 1))
        << Td(WithCi(p.median_ttft_ms.mean, p.median_ttft_ms.half_width, p.median_ttft_ms.measured, 1))
        << Td(Fixed(p.p99_ttft_ms.mean, 1))
        << Td(WithCi(p.median_tpot_ms.mean, p.median_tpot_ms.half_width, p.median_tpot_ms.measured, 2))
        << Td(p.on_total_frontier ? "total" : "");
    if (s.banded) out << Td(BandCell(p.band));
    if (s.judged) out << Td(VerdictCell(p.verdict), true);
    if (s.trials) out << Td(p.trial.is_trial ? std::to_string(p.trial.index) : "") << Td(p.trial.decision, true);
    out << "</tr>\n";
  }
  out << "</table>\n";
}

// One chart of curves over a run's time, with its steady span shaded.
void TimeChart(std::ostream& out, const std::vector<Curve>& curves, const PointOverTime& t, const std::string& title,
               const std::string& y_label) {
  std::vector<ChartSeries> cs;
  for (size_t i = 0; i < curves.size(); ++i) {
    ChartSeries c;
    c.name = curves[i].name;
    c.color = PaletteColor(i);
    c.line = curves[i].points;
    cs.push_back(std::move(c));
  }
  ChartOptions o;
  o.title = title;
  o.x_label = "seconds from the run's start";
  o.y_label = y_label;
  o.width = 440;
  o.height = 260;
  if (t.steady) o.x_bands.push_back({t.steady_start_s, t.steady_end_s, "steady"});
  out << RenderChart(cs, o);
}

// The points of a series that have series over time: timeslice throughput
// with the steady span, and the server's KV cache, queue and hit rate.
void OverTime(std::ostream& out, const Report& r, const SeriesReport& s) {
  for (const auto& p : s.points) {
    for (const auto& rep : p.repetitions) {
      auto it = r.over_time.find(rep.id);
      if (it == r.over_time.end()) continue;
      const PointOverTime& t = it->second;
      out << "<details><summary>Over time: " << HtmlEscape(rep.key) << " (point " << rep.id << ")";
      if (t.steady) {
        out << " · steady " << Fixed(t.steady_start_s, 1) << "–" << Fixed(t.steady_end_s, 1) << " s, "
            << Fixed(t.steady_output_tput, 1) << " output tok/s (whole run "
            << Fixed(rep.metrics.output_throughput, 1) << ")";
      } else {
        out << " · no steady span found";
      }
      out << "</summary>\n<div class=\"charts\">\n";
      if (!t.output_tput.points.empty())
        TimeChart(out, {t.output_tput}, t, "Output tokens/s per " + FormatSignificant(t.slice_s) + " s window",
                  "tokens/s");
      if (!t.kv_usage.empty()) TimeChart(out, t.kv_usage, t, "KV cache usage (server)", "% used");
      if (!t.queue.empty()) TimeChart(out, t.queue, t, "Requests running and waiting (server)", "requests");
      if (!t.hit_rate.empty()) TimeChart(out, t.hit_rate, t, "Prefix-cache hit rate (server)", "% of prompt tokens");
      out << "</div></details>\n";
    }
  }
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<title>frontier report</title>\n<style>"
      << kStyle << "</style></head><body>\n<div id=\"tip\"></div>\n<h1>frontier report</h1>\n"
      << "<div class=\"muted\">generated " << HtmlEscape(r.generated_utc) << " · " << r.series.size()
      << " series · " << r.stored_points
      << " stored points · error bars: 95% Student-t intervals over repetitions · hover a marker "
         "for its configuration and metrics</div>\n";
  if (r.runs.empty()) out << "<p>No runs in the database.</p>\n";
  for (const auto& w : r.workloads) {
    out << "<h2>Workload " << HtmlEscape(w.workload) << "</h2>\n<div class=\"charts\">\n";
    ParetoChart(out, r, w, false);
    ParetoChart(out, r, w, true);
    LatencyChart(out, r, w, false);
    LatencyChart(out, r, w, true);
    out << "</div>\n";
    if (!w.targets.empty()) {
      out << "<h3>At equal interactivity: total tokens/s per GPU</h3>\n<div class=\"muted\">Read off each "
             "frontier by monotone (PCHIP) interpolation; '-' where a frontier does not reach that "
             "interactivity (never extrapolated).</div>\n";
      IsoTable(out, r, w, false);
      out << "<h3>At equal interactivity: output tokens/s per GPU</h3>\n";
      IsoTable(out, r, w, true);
      out << "<h3>Cost and energy at equal interactivity</h3>\n<div class=\"muted\">$ per million "
             "tokens = $/GPU-hour / (tokens/s/GPU × 3600) × 10⁶; tokens per joule: the TDP bound (a lower "
             "bound: GPUs draw at most TDP); measured energy, where a point has it, is below.</div>\n";
      CostTable(out, r, w);
    }
    for (size_t idx : w.series) {
      SeriesTable(out, r.series[idx]);
      OverTime(out, r, r.series[idx]);
    }
  }
  if (const std::vector<EnergyRow> energy = MeasuredEnergyRows(r); !energy.empty()) {
    out << "<h2>Measured energy</h2>\n<div class=\"muted\">Per point, the mean of the repetitions that "
           "measured it (docs/energy.md); tokens per joule = total tokens / joules, beside the TDP bound.</div>\n"
           "<table><tr><th>series</th><th>point</th><th>energy</th><th>J</th><th>mean W</th><th>peak W</th>"
           "<th>tok/J measured</th><th>tok/J TDP bound</th></tr>\n";
    for (const auto& e : energy)
      out << "<tr>" << Td(e.series, true) << Td(e.key, true) << Td(e.label, true) << Td(Fixed(e.joules, 1))
          << Td(Fixed(e.mean_w, 1)) << Td(Fixed(e.peak_w, 1)) << Td(Fixed(e.tokens_per_joule, 3))
          << Td(Fixed(e.tdp_bound_tokens_per_joule, 3)) << "</tr>\n";
    out << "</table>\n";
  }
  out << "<h2>Provenance</h2>\n<table><tr><th>run</th><th>source</th><th>status</th><th>created (UTC)</th>"
         "<th>configuration</th><th>provenance</th></tr>\n";
  for (const auto& run : r.runs) {
    out << "<tr>" << Td(run.Label()) << Td(store::SourceName(run.source), true) << Td(run.status.ToString(), true)
        << Td(run.created_utc, true) << Td(Settings(run.config), true) << Td(Settings(run.provenance), true)
        << "</tr>\n";
  }
  out << "</table>\n<details><summary>Every stored point (" << r.stored_points << ")</summary>\n"
      << "<table><tr><th>point</th><th>series</th><th>key</th><th>source</th><th>tok/s/user</th>"
         "<th>total tok/s/GPU</th><th>output tok/s/GPU</th><th>TTFT p50 ms</th><th>TPOT p50 ms</th>"
         "<th>completed</th><th>failed</th><th>stored (UTC)</th></tr>\n";
  for (const auto& s : r.series)
    for (const auto& p : s.points)
      for (const auto& rep : p.repetitions)
        out << "<tr id=\"row-" << rep.id << "\">" << Td(std::to_string(rep.id)) << Td(s.name, true)
            << Td(rep.key, true) << Td(store::SourceName(rep.source), true) << Td(Fixed(rep.metrics.interactivity, 1))
            << Td(Fixed(rep.metrics.total_token_throughput_per_gpu, 1)) << Td(Fixed(rep.metrics.output_throughput_per_gpu, 1))
            << Td(Fixed(rep.metrics.ttft_ms.median, 1)) << Td(Fixed(rep.metrics.tpot_ms.median, 2))
            << Td(std::to_string(rep.metrics.completed)) << Td(std::to_string(rep.metrics.failed))
            << Td(rep.created_utc, true) << "</tr>\n";
  out << "</table></details>\n<script>" << kScript << "</script>\n</body></html>\n";
  return out.str();
}

}  // namespace frontier::report
