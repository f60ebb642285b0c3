#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <utility>

#include "core/parse.h"
#include "core/terminal_text.h"

#include "analysis/cost.h"
#include "metrics/summary.h"
#include "report/hardware_facts.h"
#include "report/model.h"
#include "report/table.h"

namespace frontier::report {

Result<int64_t> ResolveRunRef(store::Store& store, const std::string& ref) {
  auto not_found = [&](const std::string& why) -> Status {
    return NotFound("run '" + ref + "' " + why +
                    "; give an id, SWEEP/SYSTEM or SWEEP/SYSTEM~N (`frontier db ls` lists runs)");
  };
  if (!ref.empty() && ref.find_first_not_of("0123456789") == std::string::npos) {
    Result<int64_t> id = ParseInt("run id", ref, 1, std::numeric_limits<int64_t>::max());
    if (!id.ok()) return not_found("is not a run id (" + id.status().message() + ")");
    FRONTIER_ASSIGN_OR_RETURN(store::RunInfo run, store.GetRun(*id));
    return run.id;
  }
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store.ListRuns(store::Store::PlanText::kWithout));
  if (const size_t hash = ref.rfind('#'); hash != std::string::npos) {
    for (const auto& r : runs)
      if (r.Label() == ref) return r.id;
    return not_found("is not in the database");
  }
  std::string name = ref;
  int64_t back = 0;
  if (const size_t tilde = ref.rfind('~'); tilde != std::string::npos) {
    const std::string n = ref.substr(tilde + 1);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) {
      return not_found("has a bad ~N suffix");
    }
    Result<int64_t> steps = ParseInt("~N", n, 0, std::numeric_limits<int64_t>::max());
    if (!steps.ok()) return not_found("has a bad ~N suffix (" + steps.status().message() + ")");
    back = *steps;
    name = ref.substr(0, tilde);
  }
  std::vector<int64_t> matches;
  for (const auto& r : runs)
    if (r.sweep + "/" + r.system == name) matches.push_back(r.id);
  if (matches.empty()) return not_found("matches no sweep/system");
  if (back >= static_cast<int64_t>(matches.size())) {
    return not_found("goes back further than the " + std::to_string(matches.size()) + " runs of " + name);
  }
  return matches[matches.size() - 1 - static_cast<size_t>(back)];
}

Result<std::vector<analysis::PointSamples>> RunSamples(store::Store& store, int64_t run_id) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo run, store.GetRun(run_id));
  (void)run;
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(run_id));
  static const std::regex rep(R"(\|rep=\d+)");
  std::vector<analysis::PointSamples> out;
  std::map<std::string, size_t> index;
  for (const auto& p : points) {
    const std::string key = std::regex_replace(p.key, rep, "");
    auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) out.push_back({key, {}});
    auto& m = out[it->second].metrics;
    m["total_tput_per_gpu"].push_back(p.metrics.total_token_throughput_per_gpu);
    m["output_tput_per_gpu"].push_back(p.metrics.output_throughput_per_gpu);
    m["interactivity"].push_back(p.metrics.interactivity);
    m["median_ttft_ms"].push_back(p.metrics.ttft_ms.median);
    m["median_tpot_ms"].push_back(p.metrics.tpot_ms.median);
    m["p99_ttft_ms"].push_back(store::P99(p.metrics.ttft_ms));
  }
  return out;
}

Result<analysis::RegressionReport> CompareRuns(store::Store& store, int64_t baseline, int64_t candidate,
                                               const analysis::RegressionOptions& options) {
  FRONTIER_ASSIGN_OR_RETURN(auto b, RunSamples(store, baseline));
  FRONTIER_ASSIGN_OR_RETURN(auto c, RunSamples(store, candidate));
  return analysis::FindRegressions(b, c, analysis::DefaultRegressionMetrics(), options);
}

Result<std::optional<PredictionBand>> RunBand(store::Store& store, int64_t run_id) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo run, store.GetRun(run_id));
  (void)run;
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(run_id));
  std::optional<PredictionBand> out;
  for (const auto& p : points) {
    if (!p.band) continue;
    if (!out || p.band->half_width > out->half_width) {
      std::vector<std::string> flags = out ? out->flags : std::vector<std::string>{};
      out = *p.band;
      for (const auto& f : flags)
        if (std::find(out->flags.begin(), out->flags.end(), f) == out->flags.end()) out->flags.push_back(f);
    } else {
      for (const auto& f : p.band->flags)
        if (std::find(out->flags.begin(), out->flags.end(), f) == out->flags.end()) out->flags.push_back(f);
    }
  }
  return out;
}

std::string BandVerdict(const ComparedBands& bands, const std::string& metric, double relative_change) {
  const bool rated = metric.find("tput") != std::string::npos || metric == "interactivity";
  double h = -1;
  for (const auto* b : {&bands.baseline, &bands.candidate})
    if (*b && (*b)->points > 0) h = std::max(h, (*b)->half_width);
  if (!rated || h < 0) return "";
  const PredictionBand wider{h, 1, "", {}};
  return (std::fabs(relative_change) <= h ? "within " : "beyond ") + wider.Short();
}

void PrintComparison(const analysis::RegressionReport& r, const std::string& baseline_label,
                     const std::string& candidate_label, std::ostream& out, const ComparedBands& bands) {
  auto side = [](const std::optional<PredictionBand>& b) {
    return b ? "  (simulated: prediction band " + b->DescribeWithFlags() + ")" : std::string();
  };
  out << "baseline  " << EscapeControls(baseline_label) << EscapeControls(side(bands.baseline)) << "\ncandidate "
      << EscapeControls(candidate_label) << EscapeControls(side(bands.candidate)) << "\n\n";
  const bool banded = bands.baseline || bands.candidate;
  std::vector<std::string> header = {"point", "metric", "baseline", "candidate", "change", "threshold", "noise",
                                     "verdict"};
  if (banded) header.push_back("band");
  TextTable t(header);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& d : r.deltas) {
      if ((pass == 0) != d.regression) continue;
      char change[32];
      std::snprintf(change, sizeof change, "%+.1f%%", d.relative_change * 100);
      std::vector<std::string> row = {d.key, d.metric, Fixed(d.baseline, 2), Fixed(d.candidate, 2), change,
                                      Fixed(d.threshold, 2),
                                      d.noise_measured ? "measured (n=" + std::to_string(d.n_baseline) + "/" +
                                                             std::to_string(d.n_candidate) + ")"
                                                       : "not measured",
                                      d.regression ? "REGRESSION" : d.improvement ? "improved" : "same"};
      if (banded) row.push_back(BandVerdict(bands, d.metric, d.relative_change));
      t.Add(row);
    }
  }
  t.Print(out);
  for (const auto& k : r.only_baseline) out << "  only in baseline: " << EscapeControls(k) << "\n";
  for (const auto& k : r.only_candidate) out << "  only in candidate: " << EscapeControls(k) << "\n";
  out << "\n" << r.regressions << " regression(s), " << r.improvements << " improvement(s) in "
      << r.deltas.size() << " comparisons\n";
}

namespace {

struct EnergyCell {
  double measured = 0, tput_per_gpu = 0;
  int n_measured = 0, n = 0;
  std::string source;
};

Result<std::map<std::string, EnergyCell>> EnergyCells(store::Store& store, int64_t run_id, bool* any) {
  FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(run_id));
  static const std::regex rep(R"(\|rep=\d+)");
  std::map<std::string, EnergyCell> out;
  for (const auto& p : points) {
    EnergyCell& c = out[std::regex_replace(p.key, rep, "")];
    c.tput_per_gpu += p.metrics.total_token_throughput_per_gpu;
    ++c.n;
    if (p.metrics.energy && p.metrics.energy->joules > 0) {
      c.measured += p.metrics.tokens_per_joule;
      ++c.n_measured;
      if (c.source.empty()) c.source = EnergySourceOf(p);
      *any = true;
    }
  }
  return out;
}

std::pair<std::string, std::string> Shown(const EnergyCell* c, double tdp_w) {
  if (c == nullptr) return {"-", ""};
  if (c->n_measured > 0)
    return {Fixed(c->measured / c->n_measured, 3),
            metrics::MeasuredEnergyLabel(c->source.empty() ? "unknown source" : c->source)};
  return {Fixed(analysis::TokensPerJoule(c->tput_per_gpu / c->n, tdp_w), 3), metrics::kTdpBoundLabel};
}

}  // namespace

Status PrintEnergyComparison(store::Store& store, int64_t baseline, int64_t candidate, double baseline_tdp_w,
                             double candidate_tdp_w, std::ostream& out) {
  bool any = false;
  FRONTIER_ASSIGN_OR_RETURN(auto b, EnergyCells(store, baseline, &any));
  FRONTIER_ASSIGN_OR_RETURN(auto c, EnergyCells(store, candidate, &any));
  if (!any) return Status::Ok();
  out << "\nEnergy: total tokens per joule (measured where the point measured it, else the TDP bound)\n";
  TextTable t({"point", "baseline tok/J", "baseline energy", "candidate tok/J", "candidate energy"});
  std::set<std::string> keys;
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& [k, v] : c) keys.insert(k);
  for (const auto& k : keys) {
    const auto bi = b.find(k);
    const auto ci = c.find(k);
    const auto [bv, bl] = Shown(bi == b.end() ? nullptr : &bi->second, baseline_tdp_w);
    const auto [cv, cl] = Shown(ci == c.end() ? nullptr : &ci->second, candidate_tdp_w);
    t.Add({k, bv, bl, cv, cl});
  }
  t.Print(out);
  return Status::Ok();
}

Result<RunComparison> CompareRunRefs(store::Store& store, const std::string& baseline_ref,
                                     const std::string& candidate_ref, const analysis::RegressionOptions& options) {
  Result<int64_t> baseline = ResolveRunRef(store, baseline_ref);
  if (!baseline.ok()) return baseline.status().WithContext("--baseline");
  Result<int64_t> candidate = ResolveRunRef(store, candidate_ref);
  if (!candidate.ok()) return candidate.status().WithContext("--candidate");
  RunComparison c;
  FRONTIER_ASSIGN_OR_RETURN(c.baseline, store.GetRun(*baseline));
  FRONTIER_ASSIGN_OR_RETURN(c.candidate, store.GetRun(*candidate));
  FRONTIER_ASSIGN_OR_RETURN(c.report, CompareRuns(store, *baseline, *candidate, options));
  FRONTIER_ASSIGN_OR_RETURN(c.bands.baseline, RunBand(store, *baseline));
  FRONTIER_ASSIGN_OR_RETURN(c.bands.candidate, RunBand(store, *candidate));
  c.baseline_tdp_w = RunTdpW(c.baseline);
  c.candidate_tdp_w = RunTdpW(c.candidate);
  return c;
}

}  // namespace frontier::report
