#include "report/terminal.h"

#include <sstream>

#include "core/terminal_text.h"
#include "report/table.h"

namespace frontier::report {

namespace {
void PrintReportText(const Report& r, std::ostream& out);
}  // namespace

void PrintReport(const Report& r, std::ostream& out) {
  // Names, labels, statuses and searches come from the database: the whole
  // text is printed with its control characters escaped.
  std::ostringstream text;
  PrintReportText(r, text);
  out << TerminalSafe(text.str());
}

namespace {

void PrintReportText(const Report& r, std::ostream& out) {
  if (r.runs.empty()) {
    out << "no runs in the database; run `frontier sweep PLAN.yaml` or `frontier db import FILE`\n";
    return;
  }
  for (const auto& w : r.workloads) {
    out << "\n== workload " << w.workload << " ==\n";
    for (size_t idx : w.series) {
      const SeriesReport& s = r.series[idx];
      out << "\n" << s.name << "  [" << s.run.Label() << ", " << store::SourceName(s.run.source) << ", "
          << (s.run.config.count("gpus") ? s.run.config.at("gpus") + " x " : "")
          << (s.hardware.empty() ? "?" : s.hardware) << "]"
          << (!s.run.status.ok() ? "  status: " + s.run.status.ToString() : "") << "\n";
      if (!s.search.empty()) out << s.search << "\n";
      if (!s.band_flags.empty()) {
        out << "extrapolates:";
        for (size_t i = 0; i < s.band_flags.size(); ++i) out << (i ? "; " : " ") << s.band_flags[i];
        out << "\n";
      }
      const std::string load_kind = s.points.empty() ? "load" : store::LoadKindName(s.points.front().load_kind);
      std::vector<std::string> header = {load_kind, "reps", "tok/s/user",
                                         "total tok/s/GPU", "output tok/s/GPU", "TTFT p50 ms", "TPOT p50 ms",
                                         "frontier"};
      // A simulated point's prediction band (relative, on every figure it predicts).
      if (s.banded) header.push_back("band");
      if (s.judged) header.push_back("verdict");
      if (s.trials) header.insert(header.end(), {"trial", "decision"});
      TextTable t(header);
      for (const auto& p : s.points) {
        std::string load = Fixed(p.load, p.load == static_cast<int64_t>(p.load) ? 0 : 2);
        if (p.key.find("|tp=") != std::string::npos) load += " (" + p.key.substr(p.key.find("|tp=") + 1) + ")";
        std::vector<std::string> cells = {
            load, std::to_string(p.repetitions.size()),
            WithCi(p.interactivity.mean, p.interactivity.half_width, p.interactivity.measured, 1),
            WithCi(p.total_tput_per_gpu.mean, p.total_tput_per_gpu.half_width, p.total_tput_per_gpu.measured, 1),
            WithCi(p.output_tput_per_gpu.mean, p.output_tput_per_gpu.half_width, p.output_tput_per_gpu.measured, 1),
            WithCi(p.median_ttft_ms.mean, p.median_ttft_ms.half_width, p.median_ttft_ms.measured, 1),
            WithCi(p.median_tpot_ms.mean, p.median_tpot_ms.half_width, p.median_tpot_ms.measured, 2),
            p.on_total_frontier ? "*" : ""};
        if (s.banded) cells.push_back(BandCell(p.band));
        if (s.judged) cells.push_back(VerdictCell(p.verdict));
        if (s.trials) {
          cells.push_back(p.trial.is_trial ? std::to_string(p.trial.index) : "");
          cells.push_back(p.trial.decision);
        }
        t.Add(cells);
      }
      t.Print(out);
    }
    if (!w.targets.empty()) {
      for (int which = 0; which < 2; ++which) {
        const auto& iso = which == 0 ? w.iso_total : w.iso_output;
        out << "\nAt equal interactivity: " << (which == 0 ? "total" : "output")
            << " tok/s/GPU (monotone interpolation on each frontier; '-' = outside it)\n";
        std::vector<std::string> header = {"tok/s/user"};
        for (size_t idx : w.series) header.push_back(r.series[idx].name);
        for (size_t k = 1; k < w.series.size(); ++k)
          header.push_back(r.series[w.series[k]].name + " / " + r.series[w.series[0]].name);
        TextTable t(header);
        for (const auto& row : iso) {
          std::vector<std::string> cells = {Fixed(row.interactivity, 0)};
          for (const auto& v : row.tput) cells.push_back(Fixed(v, 1));
          for (size_t k = 1; k < row.ratio.size(); ++k)
            cells.push_back(row.ratio[k] ? Fixed(row.ratio[k], 2) + "x" : "-");
          t.Add(cells);
        }
        t.Print(out);
      }
      out << "\nCost and energy at equal interactivity ($ per million tokens at the listed "
             "$/GPU-hour; tok/J: TDP bound, a lower bound on efficiency)\n";
      std::vector<std::string> header = {"tok/s/user"};
      for (size_t idx : w.series) {
        header.push_back(r.series[idx].name + " $/M out");
        header.push_back("$/M total");
        header.push_back("tok/J");
      }
      TextTable t(header);
      for (const auto& row : w.cost) {
        std::vector<std::string> cells = {Fixed(row.interactivity, 0)};
        for (size_t k = 0; k < row.usd_per_m_total.size(); ++k) {
          cells.push_back(Fixed(row.usd_per_m_output[k], 3));
          cells.push_back(Fixed(row.usd_per_m_total[k], 3));
          cells.push_back(Fixed(row.tokens_per_joule[k], 2));
        }
        t.Add(cells);
      }
      t.Print(out);
      TextTable prices({"system", "hardware", "$/GPU-hour", "price source", "TDP W"});
      for (size_t idx : w.series) {
        const auto& s = r.series[idx];
        prices.Add({s.name, s.hardware.empty() ? "-" : s.hardware,
                    s.facts && s.facts->price_per_gpu_hour > 0 ? Fixed(s.facts->price_per_gpu_hour, 2) : "-",
                    s.facts ? s.facts->price_source : "unknown (give --price HW=USD)",
                    s.facts && s.facts->tdp_w > 0 ? Fixed(s.facts->tdp_w, 0) : "-"});
      }
      prices.Print(out);
    }
  }
  if (const std::vector<EnergyRow> energy = MeasuredEnergyRows(r); !energy.empty()) {
    out << "\nMeasured energy per point (mean of the repetitions that measured it; tok/J = total tokens / J, "
           "beside the TDP bound)\n";
    TextTable t({"series", "point", "energy", "J", "mean W", "peak W", "tok/J measured", "tok/J TDP bound"});
    for (const auto& e : energy)
      t.Add({e.series, e.key, e.label, Fixed(e.joules, 1), Fixed(e.mean_w, 1), Fixed(e.peak_w, 1),
             Fixed(e.tokens_per_joule, 3), Fixed(e.tdp_bound_tokens_per_joule, 3)});
    t.Print(out);
  }
  out << "\nProvenance\n";
  TextTable prov({"run", "source", "status", "created (UTC)", "config", "provenance"});
  for (const auto& run : r.runs) {
    std::string cfg, pv;
    for (auto& [k, v] : run.config) cfg += (cfg.empty() ? "" : " ") + k + "=" + v;
    // The full provenance is in the HTML report and `db export`; the terminal keeps it short.
    for (const char* k : {"frontier_version", "host", "started_utc", "file", "format"})
      if (run.provenance.count(k)) pv += (pv.empty() ? "" : " ") + std::string(k) + "=" + run.provenance.at(k);
    prov.Add({run.Label(), store::SourceName(run.source), run.status.ToString(), run.created_utc, cfg, pv});
  }
  prov.Print(out);
  out << "\n" << r.stored_points << " stored points in " << r.runs.size() << " runs\n";
}

}  // namespace

}  // namespace frontier::report
